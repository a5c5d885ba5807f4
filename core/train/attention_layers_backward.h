// Backward of the d2l attention layers (core/model/additive_attention_layer.h, dot_product_attention_layer.h).
// Every gradient accumulates (+=); input-gradient pointers may be null. The dropout descriptor must be the one the
// forward used (its mask is recomputed).
#pragma once
#include "model/dropout.h"

namespace attend {

// Through out = dropout(probs) @ values and the softmax: dscores [B, Tq, Tk] += d(scores), dvalues [B, Tk, Dv]
// (or null); dout [B, Tq, Dv], probs [B, Tq, Tk] (pre-dropout weights), values [B, Tk, Dv]. Masked keys have
// probability 0 and so get no score gradient.
void attention_weighted_sum_backward(float* dscores, float* dvalues, const float* dout, const float* probs,
                                     const float* values, const Dropout& dropout, int B, int Tq, int Tk, int Dv);

// Through scores[b,i,j] = w_v . tanh(q_proj[b,i,:] + k_proj[b,j,:]) (kernels/additive_attention.h):
// dq_proj [B, Tq, Hd], dk_proj [B, Tk, Hd], dw_v [Hd] += ; dscores [B, Tq, Tk]. The tanh is recomputed.
void additive_attention_scores_backward(float* dq_proj, float* dk_proj, float* dw_v, const float* dscores,
                                        const float* q_proj, const float* k_proj, const float* w_v, int B, int Tq,
                                        int Tk, int Hd);

// dqueries [B, Tq, Dq], dkeys [B, Tk, Dk], dvalues [B, Tk, Dv] (each may be null); dW_q [Hd, Dq], dW_k [Hd, Dk],
// dw_v [Hd]; the rest as additive_attention_layer_forward used or left them.
void additive_attention_layer_backward(float* dqueries, float* dkeys, float* dvalues, float* dW_q, float* dW_k,
                                       float* dw_v, const float* dout, const float* probs, const float* q_proj,
                                       const float* k_proj, const float* queries, const float* keys,
                                       const float* values, const float* W_q, const float* W_k, const float* w_v,
                                       const Dropout& dropout, int B, int Tq, int Tk, int Dq, int Dk, int Hd, int Dv);

// dqueries [B, Tq, D], dkeys [B, Tk, D], dvalues [B, Tk, Dv] (each may be null).
void dot_product_attention_layer_backward(float* dqueries, float* dkeys, float* dvalues, const float* dout,
                                          const float* probs, const float* queries, const float* keys,
                                          const float* values, const Dropout& dropout, int B, int Tq, int Tk, int D,
                                          int Dv);

}  // namespace attend
