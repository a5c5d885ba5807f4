// Element-wise activations and the residual add. out may equal an input.
#pragma once

namespace attend {

void relu_forward(float* out, const float* x, int n);                      // out, x: [n]
void gelu_forward(float* out, const float* x, int n);                      // exact erf GELU, as torch.nn.GELU() default
void residual_forward(float* out, const float* a, const float* b, int n);  // out = a + b; out, a, b: [n]

}  // namespace attend
