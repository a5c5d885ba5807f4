// Backward of attention_forward (core/kernels/attention.h), FlashAttention-2 style: the probabilities are
// recomputed from q, k and the forward's row_logsumexp instead of being stored, P = exp(scale q k^T + mask - lse).
// Gradients accumulate (+=). Masked keys get zero weight and so no gradient; a fully masked query row
// (lse = -inf) contributes nothing. The additive mask is a constant (no gradient).
#pragma once
#include "kernels/attn_mask.h"
#include "model/dropout.h"

namespace attend {

// dq, q, out, dout: [B,H,Tq,D]; dk, dv, k, v: [B,H,Tk,D]; row_logsumexp: [B,H,Tq] from attention_forward with
// the same mask and scale (scale <= 0 means 1/sqrt(D)).
// dropout (nullptr or inactive: none): dropout on the attention weights, out = dropout(P) V, element
// ((b*H + h)*Tq + i)*Tk + j of the weights using counter dropout->offset + that index (as dropout_forward over
// the [B,H,Tq,Tk] weights). The mask is recomputed from the counters; `out` is then not used.
void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                        const float* v, const float* out, const float* row_logsumexp, const AttnMask& mask, int B,
                        int H, int Tq, int Tk, int D, float scale = 0.0f, const Dropout* dropout = nullptr);

}  // namespace attend
