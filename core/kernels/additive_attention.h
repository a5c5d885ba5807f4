// d2l AdditiveAttention (Bahdanau) on already projected inputs (q_proj = W_q q, k_proj = W_k k):
// scores[b,i,j] = w_v . tanh(q_proj[b,i,:] + k_proj[b,j,:]); probs = masked_softmax(scores); out = probs @ values.
#pragma once
#include "kernels/attn_mask.h"

namespace attend {

void additive_attention_forward(float* out /*[B,Tq,Dv]*/, float* probs /*[B,Tq,Tk] (required)*/,
                                const float* q_proj /*[B,Tq,Hd]*/, const float* k_proj /*[B,Tk,Hd]*/,
                                const float* w_v /*[Hd]*/, const float* values /*[B,Tk,Dv]*/,
                                const AttnMask& mask, int B, int Tq, int Tk, int Hd, int Dv);

// The unnormalised scores only (no mask). scores: [B,Tq,Tk]
void additive_attention_scores(float* scores /*[B,Tq,Tk]*/, const float* q_proj /*[B,Tq,Hd]*/,
                               const float* k_proj /*[B,Tk,Hd]*/, const float* w_v /*[Hd]*/,
                               int B, int Tq, int Tk, int Hd);

}  // namespace attend
