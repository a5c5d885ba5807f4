// Backward of position_wise_ffn_forward. Gradients accumulate (+=).
#pragma once
#include "model/position_wise_ffn.h"

namespace attend {

// dx [N,C] (or nullptr); dw1 [F,C]; db1 [F]; dw2 [C,F]; db2 [C]; dout [N,C]; acts and x as in the forward.
// ops: CpuTrainOps (train/cpu_train_ops.h) or the CUDA ops.
template <class Ops>
void position_wise_ffn_backward(Ops& ops, float* dx, float* dw1, float* db1, float* dw2, float* db2, const float* dout,
                                const PositionWiseFfnActivations& a, const float* x, const float* w1, const float* w2,
                                Activation activation, int N, int C, int F) {
    const auto mark = ops.mark();
    float* dactivated = ops.take_zero(size_t(N) * F);
    float* dhidden = ops.take_zero(size_t(N) * F);
    ops.linear_backward(dactivated, dw2, db2, dout, a.activated, w2, N, F, C);
    if (activation == Activation::GELU)
        ops.gelu_backward(dhidden, dactivated, a.hidden, N * F);
    else
        ops.relu_backward(dhidden, dactivated, a.hidden, N * F);
    ops.linear_backward(dx, dw1, db1, dhidden, x, w1, N, C, F);
    ops.release(mark);
}

}  // namespace attend
