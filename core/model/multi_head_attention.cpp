#include "model/multi_head_attention.h"

#include "kernels/attention.h"
#include "model/linear.h"

#include "kernels/simd.h"  // before Eigen: it silences GCC 12's false AVX-512 warnings in Eigen's GEMM

#include <Eigen/Core>

#include <algorithm>
#include <cstring>
#include <vector>

namespace attend {

MultiHeadAttentionParams declare_multi_head_attention(ParameterStore& store, const std::string& prefix, int C,
                                                      bool bias) {
    MultiHeadAttentionParams p;
    p.bias = bias;
    // Weights first, then biases: q/k/v weights then form one [3C, C] matrix and their biases one [3C] vector,
    // so self-attention projects with a single matrix product (see multi_head_attention_forward).
    p.q_weight = store.declare(prefix + ".q_proj.weight", {C, C});
    p.k_weight = store.declare(prefix + ".k_proj.weight", {C, C});
    p.v_weight = store.declare(prefix + ".v_proj.weight", {C, C});
    p.out_weight = store.declare(prefix + ".out_proj.weight", {C, C});
    if (bias) {
        p.q_bias = store.declare(prefix + ".q_proj.bias", {C});
        p.k_bias = store.declare(prefix + ".k_proj.bias", {C});
        p.v_bias = store.declare(prefix + ".v_proj.bias", {C});
        p.out_bias = store.declare(prefix + ".out_proj.bias", {C});
    }
    return p;
}

namespace {
template <class T, class Store, class At>
MultiHeadAttentionTensors<T> resolve(Store& store, const MultiHeadAttentionParams& p, At at) {
    auto bias = [&](size_t offset) -> T* { return p.bias ? at(offset) : nullptr; };
    return {at(p.q_weight), bias(p.q_bias), at(p.k_weight),   bias(p.k_bias),
            at(p.v_weight), bias(p.v_bias), at(p.out_weight), bias(p.out_bias)};
}
}  // namespace

MultiHeadAttentionWeights multi_head_attention_weights(const ParameterStore& store, const MultiHeadAttentionParams& p) {
    return resolve<const float>(store, p, [&](size_t o) { return store.value_at(o); });
}

MultiHeadAttentionGrads multi_head_attention_grads(ParameterStore& store, const MultiHeadAttentionParams& p) {
    return resolve<float>(store, p, [&](size_t o) { return store.grad_at(o); });
}

MultiHeadAttentionActivations plan_multi_head_attention(Arena& arena, int B, int Tq, int Tk, int C, int H,
                                                        bool keep_weights) {
    MultiHeadAttentionActivations a;
    a.q = arena.take(size_t(B) * Tq * C);
    a.k = arena.take(size_t(B) * Tk * C);
    a.v = arena.take(size_t(B) * Tk * C);
    a.heads = arena.take(size_t(B) * Tq * C);
    a.concat = arena.take(size_t(B) * Tq * C);
    a.logsumexp = arena.take(size_t(B) * H * Tq);
    a.weights = keep_weights ? arena.take(size_t(B) * H * Tq * Tk) : nullptr;
    a.scratch = arena.take(size_t(B) * std::max(Tq, Tk) * 3 * C);
    return a;
}

void split_heads(float* out, const float* x, int B, int T, int H, int D, int row_stride) {
    if (row_stride == 0) row_stride = H * D;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int h = 0; h < H; ++h)
                std::memcpy(out + ((size_t(b) * H + h) * T + t) * D,
                            x + (size_t(b) * T + t) * row_stride + size_t(h) * D, sizeof(float) * D);
}

void merge_heads(float* out, const float* x, int B, int T, int H, int D, int row_stride) {
    if (row_stride == 0) row_stride = H * D;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int h = 0; h < H; ++h)
                std::memcpy(out + (size_t(b) * T + t) * row_stride + size_t(h) * D,
                            x + ((size_t(b) * H + h) * T + t) * D, sizeof(float) * D);
}

bool multi_head_attention_fusable(const MultiHeadAttentionWeights& w, int C, bool self_attention) {
    const size_t cc = size_t(C) * C;
    const bool kv =
        w.v_weight == w.k_weight + cc && ((!w.k_bias && !w.v_bias) || (w.k_bias && w.v_bias == w.k_bias + C));
    if (!self_attention) return kv;
    return kv && w.k_weight == w.q_weight + cc && ((!w.q_bias && !w.k_bias) || (w.q_bias && w.k_bias == w.q_bias + C));
}

void multi_head_attention_forward(float* out, MultiHeadAttentionActivations& a, const float* x_query,
                                  const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                  int B, int Tq, int Tk, int C, int H, const Dropout& attention_dropout) {
    const int D = C / H;
    a.attention_dropout = attention_dropout;
    const bool self_attention = x_query == x_key_value && Tq == Tk;
    if (self_attention && multi_head_attention_fusable(w, C, true)) {
        linear_forward(a.scratch, x_query, w.q_weight, w.q_bias, B * Tq, C, 3 * C);  // [B*T, 3C] = q | k | v
        split_heads(a.q, a.scratch, B, Tq, H, D, 3 * C);
        split_heads(a.k, a.scratch + C, B, Tk, H, D, 3 * C);
        split_heads(a.v, a.scratch + 2 * C, B, Tk, H, D, 3 * C);
    } else {
        linear_forward(a.scratch, x_query, w.q_weight, w.q_bias, B * Tq, C, C);
        split_heads(a.q, a.scratch, B, Tq, H, D);
        if (multi_head_attention_fusable(w, C, false)) {
            linear_forward(a.scratch, x_key_value, w.k_weight, w.k_bias, B * Tk, C, 2 * C);  // [B*Tk, 2C] = k | v
            split_heads(a.k, a.scratch, B, Tk, H, D, 2 * C);
            split_heads(a.v, a.scratch + C, B, Tk, H, D, 2 * C);
        } else {
            linear_forward(a.scratch, x_key_value, w.k_weight, w.k_bias, B * Tk, C, C);
            split_heads(a.k, a.scratch, B, Tk, H, D);
            linear_forward(a.scratch, x_key_value, w.v_weight, w.v_bias, B * Tk, C, C);
            split_heads(a.v, a.scratch, B, Tk, H, D);
        }
    }
    if (!attention_dropout.active()) {
        attention_forward(a.heads, a.weights, a.q, a.k, a.v, mask, B, H, Tq, Tk, D, 0.0f, a.logsumexp);
    } else {
        // The fused kernel never forms the weights; dropout needs them, so form them, drop, and weight the
        // values with one small product per (batch row, head).
        const size_t n = size_t(B) * H * Tq * Tk;
        std::vector<float> own_weights(a.weights ? 0 : n), dropped(n);
        float* weights = a.weights ? a.weights : own_weights.data();
        attention_forward(a.heads, weights, a.q, a.k, a.v, mask, B, H, Tq, Tk, D, 0.0f, a.logsumexp);
        dropout_forward(dropped.data(), weights, attention_dropout, int64_t(n));
        using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
#pragma omp parallel for schedule(static) if (n * D > (1 << 18))
        for (int bh = 0; bh < B * H; ++bh)
            Eigen::Map<RowMatrix>(a.heads + size_t(bh) * Tq * D, Tq, D).noalias() =
                Eigen::Map<const RowMatrix>(dropped.data() + size_t(bh) * Tq * Tk, Tq, Tk) *
                Eigen::Map<const RowMatrix>(a.v + size_t(bh) * Tk * D, Tk, D);
    }
    merge_heads(a.concat, a.heads, B, Tq, H, D);
    linear_forward(out, a.concat, w.out_weight, w.out_bias, B * Tq, C, C);
}

}  // namespace attend
