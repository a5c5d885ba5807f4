// CUDA mirrors of attention_forward (core/kernels/attention.h) and attention_backward
// (core/train/attention_backward.h): fused masked scaled dot-product attention, layout [B, H, T, D], every mask
// kind of AttnMask (valid lens per row or per query, key padding, causal with offset, boolean and additive
// attn_mask, broadcast or per head). The AttnMask's pointers must be device pointers.
//
// Forward (flash style): one warp per query row, key/value tiles of 32 in shared memory, the online softmax
// (running max m, running sum l, rescaled accumulator); the Tq x Tk matrix is never stored unless probs is asked
// for. row_logsumexp = m + log l (-inf for a fully masked row, whose output is zero).
// Backward (FlashAttention-2 style, no atomics, deterministic): probabilities are recomputed from q, k and the
// saved row_logsumexp. Kernel 1, a warp per query row, computes delta_i (= dO_i . O_i, or sum_j P_ij dP_ij M_ij
// with dropout) and dq; kernel 2, a warp per key row, walks the query tiles for dk and dv.
// Head dimension D <= 128 (attend::Error otherwise).
#pragma once
#include "kernels/attn_mask.h"
#include "model/dropout.h"

namespace attend::cuda {

constexpr int kAttentionMaxHeadDim = 128;

// CPU: attention_forward. out, q: [B,H,Tq,D]; k, v: [B,H,Tk,D]; probs: [B,H,Tq,Tk] or null (the exact,
// undropped weights); row_logsumexp: [B,H,Tq] or null. scale <= 0 means 1/sqrt(D).
// dropout (an addition over the CPU kernel; null or inactive: none): out = dropout(P) V with the counter of weight
// (b,h,i,j) = dropout->offset + ((b*H + h)*Tq + i)*Tk + j, exactly the mask attention_backward recomputes, and the
// same as dropout_forward over the [B,H,Tq,Tk] weights on the CPU.
void attention_forward_cuda(float* out, float* probs, const float* q, const float* k, const float* v,
                            const AttnMask& mask, int B, int H, int Tq, int Tk, int D, float scale = 0.0f,
                            float* row_logsumexp = nullptr, const Dropout* dropout = nullptr);

// CPU: attention_backward. Gradients accumulate (+=). dq, q, out, dout: [B,H,Tq,D]; dk, dv, k, v: [B,H,Tk,D];
// row_logsumexp: [B,H,Tq] from attention_forward_cuda with the same mask, scale and dropout.
// delta_scratch: [B,H,Tq] device scratch, or null to allocate (and free) one inside the call.
// With an active dropout `out` is not read (as the CPU).
void attention_backward_cuda(float* dq, float* dk, float* dv, float* delta_scratch, const float* dout,
                             const float* q, const float* k, const float* v, const float* out,
                             const float* row_logsumexp, const AttnMask& mask, int B, int H, int Tq, int Tk, int D,
                             float scale = 0.0f, const Dropout* dropout = nullptr);

}  // namespace attend::cuda
