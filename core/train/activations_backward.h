// Backward of the element-wise activations and the residual add (core/kernels/activations.h).
// Gradients accumulate (+=).
#pragma once

namespace attend {

void relu_backward(float* dx, const float* dout, const float* x, int n);  // dx, dout, x (forward input): [n]
void gelu_backward(float* dx, const float* dout, const float* x, int n);  // exact erf GELU; x: forward input
void residual_backward(float* da, float* db, const float* dout, int n);   // out = a + b; da, db, dout: [n]

}  // namespace attend
