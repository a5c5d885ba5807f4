#include "train/multi_head_attention_backward.h"

#include "train/cpu_train_ops.h"

namespace attend {

void multi_head_attention_backward(float* dx_query, float* dx_key_value, const MultiHeadAttentionGrads& g,
                                   const float* dout, const MultiHeadAttentionActivations& a, const float* x_query,
                                   const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                   int B, int Tq, int Tk, int C, int H) {
    ScratchArena scratch;
    CpuTrainOps ops{{scratch}};
    multi_head_attention_backward(ops, dx_query, dx_key_value, g, dout, a, x_query, x_key_value, w, mask, B, Tq, Tk, C,
                                  H);
}

}  // namespace attend
