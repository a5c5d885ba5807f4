// Optimizers over a model's flat parameter buffer (PyTorch 1.13 semantics), global-norm gradient clipping and
// learning-rate schedules. State (momentum, Adam moments) lives in flat buffers the size of the parameter
// buffer, so element i of the state belongs to element i of ParameterStore::values().
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attend {

// torch.optim.SGD: g = grad + weight_decay * p; with momentum, buf = g on the first step, then
// buf = momentum * buf + (1 - dampening) * g; g = nesterov ? g + momentum * buf : buf; p -= lr * g.
struct SGDConfig {
    float lr = 0.01f;
    float momentum = 0.0f;
    float dampening = 0.0f;
    float weight_decay = 0.0f;
    bool nesterov = false;
};

class SGD {
public:
    SGD(size_t n, SGDConfig config);
    // lr < 0 uses config.lr (schedules pass their value).
    void step(float* params, const float* grads, float lr = -1.0f);
    const SGDConfig& config() const { return config_; }
    std::vector<float>& momentum_buffer() { return buf_; }

private:
    SGDConfig config_;
    size_t n_;
    std::vector<float> buf_;
    int64_t steps_ = 0;
};

// torch.optim.Adam (decoupled = false: weight decay added to the gradient) and torch.optim.AdamW
// (decoupled = true: p *= 1 - lr * weight_decay before the Adam update). Bias-corrected:
// p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
struct AdamConfig {
    float lr = 1e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float eps = 1e-8f;
    float weight_decay = 0.0f;
    bool decoupled = false;  // true = AdamW
};

// AdamW's PyTorch defaults (weight_decay 0.01).
AdamConfig adamw_config(float lr = 1e-3f, float weight_decay = 0.01f);

// One Adam/AdamW update of n parameters at step t (1-based). params, m, v, grads: [n].
void adam_update(float* params, float* m, float* v, const float* grads, size_t n, int64_t t, float lr,
                 const AdamConfig& config);

class Adam {
public:
    Adam(size_t n, AdamConfig config);
    void step(float* params, const float* grads, float lr = -1.0f);  // lr < 0 uses config.lr
    int64_t steps() const { return t_; }
    const AdamConfig& config() const { return config_; }
    std::vector<float>& m() { return m_; }
    std::vector<float>& v() { return v_; }
    void set_steps(int64_t t) { t_ = t; }  // when restoring a checkpoint

private:
    AdamConfig config_;
    std::vector<float> m_, v_;
    int64_t t_ = 0;
};

// L2 norm of all gradients, in double.
double global_grad_norm(const float* grads, size_t n);

// The seeds' grad_clipping(net, theta): if the global L2 norm exceeds theta, scale every gradient by
// theta / norm. Returns the norm before clipping.
double clip_grad_norm(float* grads, size_t n, double theta);

// Learning rate at a 1-based step.
//   constant: lr
//   noam (Vaswani et al., warmup + inverse square root): factor * d_model^-0.5 * min(t^-0.5, t * warmup^-1.5)
struct LrSchedule {
    enum class Kind { Constant, Noam };
    Kind kind = Kind::Constant;
    float lr = 1e-3f;        // constant
    int d_model = 512;       // noam
    int warmup_steps = 4000; // noam
    float factor = 1.0f;     // noam

    static LrSchedule constant(float lr);
    static LrSchedule noam(int d_model, int warmup_steps, float factor = 1.0f);
    float at(int64_t step) const;
};

}  // namespace attend
