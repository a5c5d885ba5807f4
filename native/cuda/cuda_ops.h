// The ops the Transformer's layers are written over (core/model/cpu_ops.h, core/train/cpu_train_ops.h), on the
// GPU: each name maps to the *_cuda kernel of that name with the same arguments, so the one forward template
// (core/model/transformer_forward.h) and the one backward template (core/train/transformer_backward.h) run here
// as they run on the CPU, kernel for kernel, with the same dropout counters. Device pointers throughout; scratch
// and activations come from the device arena, given back in stack order (kernels run in launch order on the one
// stream, so memory released here is reused only by later launches).
#pragma once
#include "cuda/activations_cuda.h"
#include "cuda/attention_cuda.h"
#include "cuda/cublas_linear.h"
#include "cuda/device_memory.h"
#include "cuda/dropout_cuda.h"
#include "cuda/embedding_cuda.h"
#include "cuda/heads_cuda.h"
#include "cuda/layernorm_cuda.h"
#include "kernels/attn_mask.h"
#include "model/dropout.h"

#include <cstddef>
#include <cstdint>

namespace attend::cuda {

struct CudaOps {
    DeviceArena& arena;

    float* take(size_t n) { return arena.alloc<float>(n, "transformer activations and scratch"); }
    float* take_zero(size_t n) {
        float* p = take(n);
        zero_device(p, n);
        return p;
    }
    size_t mark() const { return arena.mark(); }
    void release(size_t m) { arena.release(m); }
    void zero(float* x, size_t n) { zero_device(x, n); }
    void copy(float* out, const float* x, size_t n) { copy_device(out, x, n); }

    // Forward.
    void linear_forward(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC) {
        linear_forward_cuda(out, x, weight, bias, N, IC, OC);
    }
    void split_heads(float* out, const float* x, int B, int T, int H, int D, int row_stride = 0) {
        split_heads_cuda(out, x, B, T, H, D, row_stride);
    }
    void merge_heads(float* out, const float* x, int B, int T, int H, int D, int row_stride = 0) {
        merge_heads_cuda(out, x, B, T, H, D, row_stride);
    }
    // The kernel applies the attention dropout itself.
    void attention_forward(float* out, float* probs, const float* q, const float* k, const float* v,
                           const AttnMask& mask, int B, int H, int Tq, int Tk, int D, float scale,
                           float* row_logsumexp, const Dropout* dropout) {
        attention_forward_cuda(out, probs, q, k, v, mask, B, H, Tq, Tk, D, scale, row_logsumexp, dropout);
    }
    void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* weight, const float* bias,
                           float eps, int N, int C) {
        layernorm_forward_cuda(out, mean, rstd, x, weight, bias, eps, N, C);
    }
    void residual_forward(float* out, const float* a, const float* b, int n) { residual_forward_cuda(out, a, b, n); }
    void relu_forward(float* out, const float* x, int n) { relu_forward_cuda(out, x, n); }
    void gelu_forward(float* out, const float* x, int n) { gelu_forward_cuda(out, x, n); }
    void dropout_forward(float* out, const float* x, const Dropout& d, int64_t n) {
        dropout_forward_cuda(out, x, d, n);
    }
    void embedding_forward(float* out, const int* ids, const float* table, float scale, int N, int C, int V) {
        embedding_forward_cuda(out, ids, table, scale, N, C, V);
    }
    void positional_encoding_add(float* x, int B, int T, int C, int t0 = 0) {
        positional_encoding_add_cuda(x, B, T, C, t0);
    }

    // Backward.
    void linear_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                         const float* weight, int N, int IC, int OC) {
        linear_backward_cuda(dx, dweight, dbias, dout, x, weight, N, IC, OC);
    }
    void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                            const float* v, const float* out, const float* row_logsumexp, const AttnMask& mask, int B,
                            int H, int Tq, int Tk, int D, float scale, const Dropout* dropout) {
        const size_t m = mark();
        float* delta = take(size_t(B) * H * Tq);  // [B,H,Tq]
        attention_backward_cuda(dq, dk, dv, delta, dout, q, k, v, out, row_logsumexp, mask, B, H, Tq, Tk, D, scale,
                                dropout);
        release(m);
    }
    void layernorm_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                            const float* mean, const float* rstd, const float* weight, int N, int C) {
        layernorm_backward_cuda(dx, dweight, dbias, dout, x, mean, rstd, weight, N, C);
    }
    void residual_backward(float* da, float* db, const float* dout, int n) { residual_backward_cuda(da, db, dout, n); }
    void relu_backward(float* dx, const float* dout, const float* x, int n) { relu_backward_cuda(dx, dout, x, n); }
    void gelu_backward(float* dx, const float* dout, const float* x, int n) { gelu_backward_cuda(dx, dout, x, n); }
    void dropout_backward(float* dx, const float* dout, const Dropout& d, int64_t n) {
        dropout_backward_cuda(dx, dout, d, n);
    }
    void embedding_backward(float* dtable, const float* dout, const int* ids, float scale, int padding_idx, int N,
                            int C, int V) {
        const size_t m = mark();
        const size_t bytes = embedding_backward_scratch_bytes(N);
        embedding_backward_cuda(dtable, dout, ids, scale, padding_idx, N, C, V,
                                arena.alloc_bytes(bytes, "embedding backward sort"), bytes);
        release(m);
    }
};

}  // namespace attend::cuda
