// Backward of linear_forward (core/model/linear.h). Every gradient ACCUMULATES (+=), dx included, so a
// tensor read by several layers (residual streams, shared inputs) collects all of its gradients.
#pragma once

namespace attend {

// dx [N, IC] or null (input needs no gradient), dweight [OC, IC], dbias [OC] or null (no bias),
// dout [N, OC], x [N, IC] or null (zeros, as in linear_forward), weight [OC, IC].
void linear_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x, const float* weight,
                     int N, int IC, int OC);

}  // namespace attend
