#include "cuda/activations_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"

namespace attend::cuda {

namespace {

constexpr int kThreads = 256;

__global__ void relu_forward_kernel(float* out, const float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f);
}

__global__ void gelu_forward_kernel(float* out, const float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}

__global__ void residual_forward_kernel(float* out, const float* a, const float* b, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

__global__ void relu_backward_kernel(float* dx, const float* dout, const float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dx[i] += x[i] > 0.0f ? dout[i] : 0.0f;
}

// d/dx [x Phi(x)] = Phi(x) + x phi(x)
__global__ void gelu_backward_kernel(float* dx, const float* dout, const float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        const float grad = 0.5f * (1.0f + erff(v * 0.70710678118654752f)) +
                           v * 0.39894228040143268f * expf(-0.5f * v * v);
        dx[i] += grad * dout[i];
    }
}

__global__ void residual_backward_kernel(float* da, float* db, const float* dout, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        da[i] += dout[i];
        db[i] += dout[i];
    }
}

}  // namespace

#define ATTEND_LAUNCH_1D(kernel, n, ...)                                  \
    do {                                                                  \
        if ((n) <= 0) return;                                             \
        kernel<<<ceil_div((n), kThreads), kThreads>>>(__VA_ARGS__, (n));  \
        CUDA_CHECK_LAUNCH(#kernel);                                       \
    } while (0)

void relu_forward_cuda(float* out, const float* x, int n) { ATTEND_LAUNCH_1D(relu_forward_kernel, n, out, x); }
void gelu_forward_cuda(float* out, const float* x, int n) { ATTEND_LAUNCH_1D(gelu_forward_kernel, n, out, x); }
void residual_forward_cuda(float* out, const float* a, const float* b, int n) {
    ATTEND_LAUNCH_1D(residual_forward_kernel, n, out, a, b);
}
void relu_backward_cuda(float* dx, const float* dout, const float* x, int n) {
    ATTEND_LAUNCH_1D(relu_backward_kernel, n, dx, dout, x);
}
void gelu_backward_cuda(float* dx, const float* dout, const float* x, int n) {
    ATTEND_LAUNCH_1D(gelu_backward_kernel, n, dx, dout, x);
}
void residual_backward_cuda(float* da, float* db, const float* dout, int n) {
    ATTEND_LAUNCH_1D(residual_backward_kernel, n, da, db, dout);
}

#undef ATTEND_LAUNCH_1D

}  // namespace attend::cuda
