// d2l's DotProductAttention layer (seed 000): scores = Q K^T / sqrt(D), weights = masked_softmax(scores),
// out = dropout(weights) @ V. No parameters; values may have another width (Dv) than queries and keys (D).
#pragma once
#include "kernels/attn_mask.h"
#include "model/dropout.h"

namespace attend {

// out [B, Tq, Dv]; probs [B, Tq, Tk] weights before dropout (kept for the backward); queries [B, Tq, D],
// keys [B, Tk, D], values [B, Tk, Dv].
void dot_product_attention_layer_forward(float* out, float* probs, const float* queries, const float* keys,
                                         const float* values, const AttnMask& mask, const Dropout& dropout, int B,
                                         int Tq, int Tk, int D, int Dv);

}  // namespace attend
