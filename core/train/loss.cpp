#include "train/loss.h"

#include "train/ordered_sum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "error.h"
#include "kernels/softmax.h"

namespace attend {

namespace {

void check_target(int y, int ignore_index, int V, int n) {
    if (y != ignore_index && (y < 0 || y >= V))
        throw Error("cross entropy: target " + std::to_string(y) + " of row " + std::to_string(n) +
                    " is outside [0, " + std::to_string(V) + ")" +
                    (ignore_index == std::numeric_limits<int>::min()
                         ? std::string()
                         : " and is not the ignore index " + std::to_string(ignore_index)));
}

// Loss of one row from its logits; writes the row's softmax to p.
double row_loss(float* p, const float* z, int y, float smoothing, int V) {
    const float lse = softmax_row(p, z, V);  // log-sum-exp of the row
    // -log p[c] = lse - z[c]
    double nll = double(lse) - double(z[y]);
    if (smoothing == 0.0f) return nll;
    double sum_neg_logp = 0;
    for (int c = 0; c < V; ++c) sum_neg_logp += double(lse) - double(z[c]);
    return (1.0 - smoothing) * nll + double(smoothing) / V * sum_neg_logp;
}

void row_backward(float* dz, float g, const float* p, int y, float smoothing, int V) {
    const float uniform = g * smoothing / float(V);
    for (int c = 0; c < V; ++c) dz[c] += g * p[c] - uniform;
    dz[y] -= g * (1.0f - smoothing);
}

}  // namespace

double cross_entropy_forward(float* losses, float* probs, const float* logits, const int* targets, int ignore_index,
                             float label_smoothing, int N, int V) {
    for (int n = 0; n < N; ++n) check_target(targets[n], ignore_index, V, n);
    return ordered_sum(N, 16, size_t(N) * V > 32768, [&](int64_t n) {
        float* p = probs + size_t(n) * V;
        const float* z = logits + size_t(n) * V;
        double loss = 0;
        if (targets[n] == ignore_index) {
            softmax_row(p, z, V);
        } else {
            loss = row_loss(p, z, targets[n], label_smoothing, V);
        }
        if (losses) losses[n] = float(loss);
        return loss;
    });
}

double cross_entropy_fused(float* logits, const int* targets, int ignore_index, float label_smoothing, float dloss,
                           int N, int V) {
    for (int n = 0; n < N; ++n) check_target(targets[n], ignore_index, V, n);
    return ordered_sum(N, 16, size_t(N) * V > 32768, [&](int64_t n) {
        // One row's probabilities (V floats, cache-resident) per thread; the same row functions as the two calls.
        thread_local std::vector<float> p;
        p.resize(size_t(V));
        float* z = logits + size_t(n) * V;
        if (targets[n] == ignore_index) {
            std::fill_n(z, V, 0.0f);
            return 0.0;
        }
        const double loss = row_loss(p.data(), z, targets[n], label_smoothing, V);
        std::fill_n(z, V, 0.0f);
        row_backward(z, dloss, p.data(), targets[n], label_smoothing, V);
        return loss;
    });
}

int cross_entropy_count(const int* targets, int ignore_index, int N) {
    int count = 0;
    for (int n = 0; n < N; ++n) count += targets[n] != ignore_index;
    return count;
}

void cross_entropy_backward(float* dlogits, const float* dlosses, float dloss, const float* probs, const int* targets,
                            int ignore_index, float label_smoothing, int N, int V) {
#pragma omp parallel for if (size_t(N) * V > 32768)
    for (int n = 0; n < N; ++n) {
        if (targets[n] == ignore_index) continue;
        const float g = dlosses ? dlosses[n] : dloss;
        row_backward(dlogits + size_t(n) * V, g, probs + size_t(n) * V, targets[n], label_smoothing, V);
    }
}

double masked_softmax_ce_forward(float* losses, float* probs, const float* logits, const int* labels,
                                 const int* valid_len, int B, int T, int V) {
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)  // no ignore index here: every label must be a class
            check_target(labels[size_t(b) * T + t], std::numeric_limits<int>::min(), V, b * T + t);
    double total = 0;
    for (int b = 0; b < B; ++b) {
        const double sum = ordered_sum(T, 16, size_t(T) * V > 32768, [&](int64_t t) {
            const size_t row = size_t(b) * T + t;
            const double ce = row_loss(probs + row * V, logits + row * V, labels[row], 0.0f, V);
            return t < valid_len[b] ? ce : 0.0;  // sequence_mask: weight 1 inside the valid length, 0 after
        });
        const double loss = sum / T;  // .mean(dim=1) over all T steps, masked ones included as zeros
        if (losses) losses[b] = float(loss);
        total += loss;
    }
    return total;
}

void masked_softmax_ce_backward(float* dlogits, const float* dlosses, const float* probs, const int* labels,
                                const int* valid_len, int B, int T, int V) {
    for (int b = 0; b < B; ++b) {
        const float g = (dlosses ? dlosses[b] : 1.0f) / float(T);
        const int steps = valid_len[b] < T ? valid_len[b] : T;
#pragma omp parallel for if (size_t(steps) * V > 32768)
        for (int t = 0; t < steps; ++t) {
            const size_t row = size_t(b) * T + t;
            row_backward(dlogits + row * V, g, probs + row * V, labels[row], 0.0f, V);
        }
    }
}

}  // namespace attend
