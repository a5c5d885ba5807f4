// CUDA mirrors of core/kernels/softmax.h, core/kernels/masked_softmax.h and core/train/softmax_backward.h.
// Over the last axis, the row maximum subtracted first; an all -inf row gives zeros (softmax) / -inf (log-softmax).
// Device pointers (the AttnMask's pointers too).
#pragma once
#include "kernels/attn_mask.h"

namespace attend::cuda {

void softmax_forward_cuda(float* out, const float* x, int N, int C);      // out, x: [N, C]; out may equal x
void log_softmax_forward_cuda(float* out, const float* x, int N, int C);  // out, x: [N, C]

// CPU: masked_softmax_forward. x, out: [B, H, Tq, Tk] (scores already scaled); out may equal x.
void masked_softmax_forward_cuda(float* out, const float* x, const AttnMask& mask, int B, int H, int Tq, int Tk);

// CPU: softmax_backward. dx += out * (dout - sum(dout * out)); dx, dout, out: [N, C]
void softmax_backward_cuda(float* dx, const float* dout, const float* out, int N, int C);
// CPU: log_softmax_backward. dx += dout - exp(out) * sum(dout); an all -inf row contributes nothing.
void log_softmax_backward_cuda(float* dx, const float* dout, const float* out, int N, int C);

}  // namespace attend::cuda
