// CUDA mirrors of core/kernels/layernorm.h and core/train/layernorm_backward.h. Device pointers.
#pragma once

namespace attend::cuda {

// CPU: layernorm_forward. x, out [N,C] (out may equal x); weight, bias [C] or null (1 and 0); mean, rstd [N] or
// null. Two passes (mean, then the variance of x - mean), biased variance, as the CPU.
void layernorm_forward_cuda(float* out, float* mean, float* rstd, const float* x, const float* weight,
                            const float* bias, float eps, int N, int C);

// CPU: layernorm_backward. Gradients accumulate (+=). dx, dout, x [N,C]; dweight, dbias [C] or null; mean, rstd
// [N] from the forward; weight [C] or null. dweight/dbias are reduced over rows by a second kernel in row order
// (deterministic, no atomics).
void layernorm_backward_cuda(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                             const float* mean, const float* rstd, const float* weight, int N, int C);

}  // namespace attend::cuda
