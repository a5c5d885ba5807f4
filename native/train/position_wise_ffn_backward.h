// Backward of position_wise_ffn_forward. Gradients accumulate (+=).
#pragma once
#include "model/position_wise_ffn.h"

namespace attend {

// dx [N,C] (or nullptr); dw1 [F,C]; db1 [F]; dw2 [C,F]; db2 [C]; dout [N,C]; acts and x as in the forward.
void position_wise_ffn_backward(float* dx, float* dw1, float* db1, float* dw2, float* db2, const float* dout,
                                const PositionWiseFfnActivations& acts, const float* x, const float* w1,
                                const float* w2, Activation activation, int N, int C, int F);

}  // namespace attend
