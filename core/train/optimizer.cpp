#include "train/optimizer.h"

#include "train/ordered_sum.h"

#include <algorithm>
#include <cmath>

namespace attend {

SGD::SGD(size_t n, SGDConfig config) : config_(config), n_(n), buf_(config.momentum != 0.0f ? n : 0, 0.0f) {}

void SGD::step(float* params, const float* grads, float lr) {
    if (lr < 0) lr = config_.lr;
    const SGDConfig c = config_;
    const bool first = steps_ == 0;
    ++steps_;
    float* buf = buf_.data();
    const int64_t N = int64_t(n_);
#pragma omp parallel for if (N > 65536)
    for (int64_t i = 0; i < N; ++i) {
        float g = grads[i] + c.weight_decay * params[i];
        if (c.momentum != 0.0f) {
            buf[i] = first ? g : c.momentum * buf[i] + (1.0f - c.dampening) * g;
            g = c.nesterov ? g + c.momentum * buf[i] : buf[i];
        }
        params[i] -= lr * g;
    }
}

AdamConfig adamw_config(float lr, float weight_decay) {
    AdamConfig c;
    c.lr = lr;
    c.weight_decay = weight_decay;
    c.decoupled = true;
    return c;
}

void adam_update(float* params, float* m, float* v, const float* grads, size_t n, int64_t t, float lr,
                 const AdamConfig& c) {
    const double bias1 = 1.0 - std::pow(double(c.beta1), double(t));
    const double bias2 = 1.0 - std::pow(double(c.beta2), double(t));
    const float step_size = float(lr / bias1);
    const float inv_sqrt_bias2 = float(1.0 / std::sqrt(bias2));
    const float decay = c.decoupled ? 1.0f - lr * c.weight_decay : 1.0f;
    const float l2 = c.decoupled ? 0.0f : c.weight_decay;
    const int64_t N = int64_t(n);
#pragma omp parallel for if (N > 65536)
    for (int64_t i = 0; i < N; ++i) {
        const float p = params[i] * decay;
        const float g = grads[i] + l2 * params[i];
        m[i] = c.beta1 * m[i] + (1.0f - c.beta1) * g;
        v[i] = c.beta2 * v[i] + (1.0f - c.beta2) * g * g;
        const float denom = std::sqrt(v[i]) * inv_sqrt_bias2 + c.eps;
        params[i] = p - step_size * m[i] / denom;
    }
}

Adam::Adam(size_t n, AdamConfig config) : config_(config), m_(n, 0.0f), v_(n, 0.0f) {}

void Adam::step(float* params, const float* grads, float lr) {
    ++t_;
    adam_update(params, m_.data(), v_.data(), grads, m_.size(), t_, lr < 0 ? config_.lr : lr, config_);
}

double global_grad_norm(const float* grads, size_t n) {
    const int64_t N = int64_t(n);
    return std::sqrt(ordered_sum(N, 4096, N > 65536, [&](int64_t i) { return double(grads[i]) * grads[i]; }));
}

double clip_grad_norm(float* grads, size_t n, double theta) {
    const double norm = global_grad_norm(grads, n);
    if (norm > theta) {
        const float scale = float(theta / norm);
        const int64_t N = int64_t(n);
#pragma omp parallel for if (N > 65536)
        for (int64_t i = 0; i < N; ++i) grads[i] *= scale;
    }
    return norm;
}

LrSchedule LrSchedule::constant(float lr) {
    LrSchedule s;
    s.kind = Kind::Constant;
    s.lr = lr;
    return s;
}

LrSchedule LrSchedule::noam(int d_model, int warmup_steps, float factor) {
    LrSchedule s;
    s.kind = Kind::Noam;
    s.d_model = d_model;
    s.warmup_steps = warmup_steps;
    s.factor = factor;
    return s;
}

float LrSchedule::at(int64_t step) const {
    if (kind == Kind::Constant) return lr;
    const double t = double(std::max<int64_t>(step, 1));
    const double warm = double(std::max(warmup_steps, 1));
    return float(factor / std::sqrt(double(d_model)) * std::min(1.0 / std::sqrt(t), t / (warm * std::sqrt(warm))));
}

}  // namespace attend
