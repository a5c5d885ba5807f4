// CUDA mirrors of core/kernels/activations.h and core/train/activations_backward.h. Element-wise; out may equal
// an input; backward gradients accumulate (+=). Device pointers; n elements.
#pragma once

namespace attend::cuda {

void relu_forward_cuda(float* out, const float* x, int n);
void gelu_forward_cuda(float* out, const float* x, int n);                      // exact erf GELU
void residual_forward_cuda(float* out, const float* a, const float* b, int n);  // out = a + b

void relu_backward_cuda(float* dx, const float* dout, const float* x, int n);   // x: the forward input
void gelu_backward_cuda(float* dx, const float* dout, const float* x, int n);
void residual_backward_cuda(float* da, float* db, const float* dout, int n);

}  // namespace attend::cuda
