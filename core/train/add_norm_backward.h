// Backward of add_norm_input / add_norm_forward (core/model/add_norm.h). Gradients accumulate (+=).
// ops: CpuTrainOps (train/cpu_train_ops.h) or the CUDA ops.
#pragma once
#include "model/add_norm.h"

#include <cstdint>

namespace attend {

// From dout [N,C]: dx [N,C] += the residual path, dy [N,C] += the gradient of the sublayer output (through
// dropout); post-LN also the LayerNorm parameters (dweight, dbias [C]).
template <class Ops>
void add_norm_backward(Ops& ops, float* dx, float* dy, float* dweight, float* dbias, const float* dout,
                       const AddNormActivations& a, const float* weight, int N, int C, bool pre_ln) {
    const auto mark = ops.mark();
    const float* dsum = dout;
    if (!pre_ln) {
        float* buffer = ops.take_zero(size_t(N) * C);
        ops.layernorm_backward(buffer, dweight, dbias, dout, a.sum, a.mean, a.rstd, weight, N, C);
        dsum = buffer;
    }
    if (a.dropout.active()) {
        ops.dropout_backward(dy, dsum, a.dropout, int64_t(N) * C);
        ops.residual_forward(dx, dx, dsum, N * C);  // dx += dsum
    } else {
        ops.residual_backward(dx, dy, dsum, N * C);
    }
    ops.release(mark);
}

// From dinput [N,C], the gradient of the sublayer input: dx [N,C] += it (post-LN) or its LayerNorm backward
// (pre-LN, also dweight, dbias). x [N,C] is the unit's input.
template <class Ops>
void add_norm_input_backward(Ops& ops, float* dx, float* dweight, float* dbias, const float* dinput,
                             const AddNormActivations& a, const float* x, const float* weight, int N, int C,
                             bool pre_ln) {
    if (pre_ln)
        ops.layernorm_backward(dx, dweight, dbias, dinput, x, a.mean, a.rstd, weight, N, C);
    else
        ops.residual_forward(dx, dx, dinput, N * C);  // dx += dinput
}

}  // namespace attend
