#include "cuda/dropout_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"
#include "cuda/dropout_rng.cuh"

namespace attend::cuda {

namespace {

__global__ void dropout_forward_kernel(float* out, const float* x, DropoutDev d, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (!d.active())
        out[i] = x[i];
    else
        out[i] = d.keep(uint64_t(i)) ? x[i] * d.scale() : 0.0f;
}

__global__ void dropout_backward_kernel(float* dx, const float* dout, DropoutDev d, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (!d.active())
        dx[i] += dout[i];
    else if (d.keep(uint64_t(i)))
        dx[i] += dout[i] * d.scale();
}

DropoutDev to_dev(const Dropout& d) { return DropoutDev{d.p, d.seed, d.offset}; }

}  // namespace

void dropout_forward_cuda(float* out, const float* x, const Dropout& d, int64_t n) {
    if (n <= 0 || (!d.active() && out == x)) return;
    dropout_forward_kernel<<<ceil_div(n, 256), 256>>>(out, x, to_dev(d), n);
    CUDA_CHECK_LAUNCH("dropout_forward_kernel");
}

void dropout_backward_cuda(float* dx, const float* dout, const Dropout& d, int64_t n) {
    if (n <= 0) return;
    dropout_backward_kernel<<<ceil_div(n, 256), 256>>>(dx, dout, to_dev(d), n);
    CUDA_CHECK_LAUNCH("dropout_backward_kernel");
}

}  // namespace attend::cuda
