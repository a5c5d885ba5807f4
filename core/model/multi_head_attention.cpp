#include "model/multi_head_attention.h"

#include "model/cpu_ops.h"

#include <cstring>

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
template <class T, class At>
MultiHeadAttentionTensors<T> resolve(const MultiHeadAttentionParams& p, At at) {
    auto bias = [&](size_t offset) -> T* { return p.bias ? at(offset) : nullptr; };
    return {at(p.q_weight), bias(p.q_bias), at(p.k_weight),   bias(p.k_bias),
            at(p.v_weight), bias(p.v_bias), at(p.out_weight), bias(p.out_bias)};
}
}  // namespace

MultiHeadAttentionWeights multi_head_attention_weights(const ParameterStore& store, const MultiHeadAttentionParams& p) {
    return resolve<const float>(p, [&](size_t o) { return store.value_at(o); });
}

MultiHeadAttentionGrads multi_head_attention_grads(ParameterStore& store, const MultiHeadAttentionParams& p) {
    return resolve<float>(p, [&](size_t o) { return store.grad_at(o); });
}

MultiHeadAttentionWeights multi_head_attention_weights(const float* values, const MultiHeadAttentionParams& p) {
    return resolve<const float>(p, [&](size_t o) { return values + o; });
}

MultiHeadAttentionGrads multi_head_attention_grads(float* grads, const MultiHeadAttentionParams& p) {
    return resolve<float>(p, [&](size_t o) { return grads + o; });
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
    ScratchArena scratch;
    CpuOps ops{scratch};
    multi_head_attention_forward(ops, out, a, x_query, x_key_value, w, mask, B, Tq, Tk, C, H, attention_dropout);
}

}  // namespace attend
