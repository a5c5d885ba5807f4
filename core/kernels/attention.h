// Fused scaled dot-product attention, layout [B, H, T, D].
#pragma once
#include "kernels/attn_mask.h"

namespace attend {

// Tiles over keys with the online-softmax recurrence (running max m, running sum l, rescaled accumulator) so
// the Tq x Tk matrix is never stored, unless probs != nullptr (then probs [B,H,Tq,Tk] receives the exact
// weights, for visualization). scale <= 0 means 1/sqrt(D). row_logsumexp, if not null, receives [B,H,Tq]
// (m + log l of the scaled, masked scores; -inf for a fully masked row) so that a backward pass can recompute
// probabilities. A fully masked query row gets a zero output and zero probabilities.
// out, q: [B,H,Tq,D]; k, v: [B,H,Tk,D]; probs: [B,H,Tq,Tk] or nullptr; row_logsumexp: [B,H,Tq] or nullptr.
void attention_forward(float* out, float* probs, const float* q, const float* k, const float* v,
                       const AttnMask& mask, int B, int H, int Tq, int Tk, int D,
                       float scale = 0.0f, float* row_logsumexp = nullptr);

}  // namespace attend
