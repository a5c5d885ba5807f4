// CpuOps (core/model/cpu_ops.h) with the backward kernels the templates of native/train/*_backward.h call, each
// under its CPU name with its CPU arguments; native/cuda/cuda_ops.h maps the same names to the *_cuda kernels.
#pragma once
#include "model/cpu_ops.h"
#include "train/activations_backward.h"
#include "train/attention_backward.h"
#include "train/dropout.h"
#include "train/embedding_backward.h"
#include "train/layernorm_backward.h"
#include "train/linear_backward.h"

namespace attend {

struct CpuTrainOps : CpuOps {
    // The training forward's products through train/gemm.h (OpenBLAS where linked), as the backward's.
    void linear_forward(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC) {
        attend::linear_forward_gemm(out, x, weight, bias, N, IC, OC);
    }
    void linear_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                         const float* weight, int N, int IC, int OC) {
        attend::linear_backward(dx, dweight, dbias, dout, x, weight, N, IC, OC);
    }
    void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                            const float* v, const float* out, const float* row_logsumexp, const AttnMask& mask, int B,
                            int H, int Tq, int Tk, int D, float scale, const Dropout* dropout) {
        attend::attention_backward(dq, dk, dv, dout, q, k, v, out, row_logsumexp, mask, B, H, Tq, Tk, D, scale,
                                   dropout);
    }
    void layernorm_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                            const float* mean, const float* rstd, const float* weight, int N, int C) {
        attend::layernorm_backward(dx, dweight, dbias, dout, x, mean, rstd, weight, N, C);
    }
    void residual_backward(float* da, float* db, const float* dout, int n) {
        attend::residual_backward(da, db, dout, n);
    }
    void relu_backward(float* dx, const float* dout, const float* x, int n) { attend::relu_backward(dx, dout, x, n); }
    void gelu_backward(float* dx, const float* dout, const float* x, int n) { attend::gelu_backward(dx, dout, x, n); }
    void dropout_backward(float* dx, const float* dout, const Dropout& d, int64_t n) {
        attend::dropout_backward(dx, dout, d, n);
    }
    void embedding_backward(float* dtable, const float* dout, const int* ids, float scale, int padding_idx, int N,
                            int C, int V) {
        attend::embedding_backward(dtable, dout, ids, scale, padding_idx, N, C, V);
    }
};

}  // namespace attend
