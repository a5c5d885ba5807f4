// Backward of multi_head_attention_forward (core/model/multi_head_attention.h). Gradients accumulate (+=):
// for self-attention pass the same pointer as dx_query and dx_key_value.
#pragma once
#include "model/multi_head_attention.h"

namespace attend {

// dx_query [B,Tq,C]; dx_key_value [B,Tk,C] (either may be nullptr); dout [B,Tq,C]; acts as saved by the forward
// with the same inputs, weights and mask.
void multi_head_attention_backward(float* dx_query, float* dx_key_value, const MultiHeadAttentionGrads& g,
                                   const float* dout, const MultiHeadAttentionActivations& acts, const float* x_query,
                                   const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                   int B, int Tq, int Tk, int C, int H);

}  // namespace attend
