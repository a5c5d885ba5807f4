// Backward of add_norm_input / add_norm_forward (core/model/add_norm.h). Gradients accumulate (+=).
#pragma once
#include "model/add_norm.h"

namespace attend {

// From dout [N,C]: dx [N,C] += the residual path, dy [N,C] += the gradient of the sublayer output (through
// dropout); post-LN also the LayerNorm parameters (dweight, dbias [C]).
void add_norm_backward(float* dx, float* dy, float* dweight, float* dbias, const float* dout,
                       const AddNormActivations& acts, const float* weight, int N, int C, bool pre_ln);

// From dinput [N,C], the gradient of the sublayer input: dx [N,C] += it (post-LN) or its LayerNorm backward
// (pre-LN, also dweight, dbias). x [N,C] is the unit's input.
void add_norm_input_backward(float* dx, float* dweight, float* dbias, const float* dinput,
                             const AddNormActivations& acts, const float* x, const float* weight, int N, int C,
                             bool pre_ln);

}  // namespace attend
