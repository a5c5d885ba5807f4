// d2l's AdditiveAttention layer (seed 000): W_q, W_k (no bias) project queries and keys to Hd features,
// scores = w_v . tanh(W_q q + W_k k), weights = masked_softmax(scores), out = dropout(weights) @ values.
// Parameters: W_q [Hd, Dq], W_k [Hd, Dk] (nn.Linear layout), w_v [Hd] (nn.Linear(Hd, 1).weight flattened).
#pragma once
#include "kernels/attn_mask.h"
#include "model/dropout.h"

namespace attend {

// out [B, Tq, Dv]; probs [B, Tq, Tk] the attention weights (before dropout, as d2l's attention_weights);
// q_proj [B, Tq, Hd], k_proj [B, Tk, Hd] kept for the backward; queries [B, Tq, Dq], keys [B, Tk, Dk],
// values [B, Tk, Dv]. dropout: inactive in evaluation.
void additive_attention_layer_forward(float* out, float* probs, float* q_proj, float* k_proj, const float* queries,
                                      const float* keys, const float* values, const float* W_q, const float* W_k,
                                      const float* w_v, const AttnMask& mask, const Dropout& dropout, int B, int Tq,
                                      int Tk, int Dq, int Dk, int Hd, int Dv);

// out = probs' @ values per batch row, probs' = dropout(probs). out [B, Tq, Dv], probs [B, Tq, Tk], values
// [B, Tk, Dv]. Shared by the attention layers; the dropout mask element of (b, i, j) is counter b*Tq*Tk + i*Tk + j.
void attention_weighted_sum(float* out, const float* probs, const float* values, const Dropout& dropout, int B, int Tq,
                            int Tk, int Dv);

}  // namespace attend
