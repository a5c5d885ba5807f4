// The ops the Transformer's layers are written over (the templates in model/multi_head_attention.h, add_norm.h,
// position_wise_ffn.h, encoder_block.h, decoder_block.h, transformer_forward.h), on the CPU: each forwards to
// the CPU kernel of that name with its arguments. native/cuda/cuda_ops.h maps the same names, in the same argument
// order, to the *_cuda kernels, so one template serves both devices and draws dropout counters in one order.
// The backward ops are core/train/cpu_train_ops.h.
#pragma once
#include "kernels/activations.h"
#include "kernels/attention.h"
#include "kernels/attn_mask.h"
#include "kernels/embedding.h"
#include "kernels/layernorm.h"
#include "kernels/positional_encoding.h"
#include "model/arena.h"
#include "model/dropout.h"
#include "model/linear.h"
#include "model/multi_head_attention.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace attend {

struct CpuOps {
    ScratchArena& scratch;

    // Scratch, given back in stack order: take() is uninitialised, take_zero() zeros.
    float* take(size_t n) { return scratch.take(n); }
    float* take_zero(size_t n) {
        float* p = take(n);
        std::fill_n(p, n, 0.0f);
        return p;
    }
    ScratchArena::Mark mark() const { return scratch.mark(); }
    void release(ScratchArena::Mark m) { scratch.release(m); }
    void zero(float* x, size_t n) { std::fill_n(x, n, 0.0f); }
    void copy(float* out, const float* x, size_t n) { std::copy_n(x, n, out); }

    void linear_forward(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC) {
        attend::linear_forward(out, x, weight, bias, N, IC, OC);
    }
    void split_heads(float* out, const float* x, int B, int T, int H, int D, int row_stride = 0) {
        attend::split_heads(out, x, B, T, H, D, row_stride);
    }
    void merge_heads(float* out, const float* x, int B, int T, int H, int D, int row_stride = 0) {
        attend::merge_heads(out, x, B, T, H, D, row_stride);
    }
    // attention_forward, and with an active dropout out = dropout(P) v with dropout_forward's mask over the
    // [B,H,Tq,Tk] weights (attention_forward_cuda's signature). probs (or null) keeps the weights before dropout.
    void attention_forward(float* out, float* probs, const float* q, const float* k, const float* v,
                           const AttnMask& mask, int B, int H, int Tq, int Tk, int D, float scale,
                           float* row_logsumexp, const Dropout* dropout);
    void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* weight, const float* bias,
                           float eps, int N, int C) {
        attend::layernorm_forward(out, mean, rstd, x, weight, bias, eps, N, C);
    }
    void residual_forward(float* out, const float* a, const float* b, int n) { attend::residual_forward(out, a, b, n); }
    void relu_forward(float* out, const float* x, int n) { attend::relu_forward(out, x, n); }
    void gelu_forward(float* out, const float* x, int n) { attend::gelu_forward(out, x, n); }
    void dropout_forward(float* out, const float* x, const Dropout& d, int64_t n) {
        attend::dropout_forward(out, x, d, n);
    }
    void embedding_forward(float* out, const int* ids, const float* table, float scale, int N, int C, int V) {
        attend::embedding_forward(out, ids, table, scale, N, C, V);
    }
    void positional_encoding_add(float* x, int B, int T, int C, int t0 = 0) {
        attend::positional_encoding_add(x, B, T, C, t0);
    }
};

}  // namespace attend
