#include "cuda/layernorm_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"

namespace attend::cuda {

namespace {

constexpr int kThreads = 128;

// One block per row.
__global__ void layernorm_forward_kernel(float* out, float* mean, float* rstd, const float* x, const float* weight,
                                         const float* bias, float eps, int C) {
    __shared__ float shared[32];
    const int n = blockIdx.x;
    const float* xr = x + (size_t)n * C;
    float* yr = out + (size_t)n * C;
    float s = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) s += xr[c];
    const float m = block_sum(s, shared) / C;
    float v = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        const float d = xr[c] - m;
        v += d * d;
    }
    const float r = 1.0f / sqrtf(block_sum(v, shared) / C + eps);
    // out may equal x: every thread reads and writes only its own columns after the reductions.
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        float y = (xr[c] - m) * r;
        if (weight) y *= weight[c];
        if (bias) y += bias[c];
        yr[c] = y;
    }
    if (threadIdx.x == 0) {
        if (mean) mean[n] = m;
        if (rstd) rstd[n] = r;
    }
}

// dx for one row per block.
__global__ void layernorm_backward_dx_kernel(float* dx, const float* dout, const float* x, const float* mean,
                                             const float* rstd, const float* weight, int C) {
    __shared__ float shared[32];
    const int n = blockIdx.x;
    const float* xr = x + (size_t)n * C;
    const float* dyr = dout + (size_t)n * C;
    float* dxr = dx + (size_t)n * C;
    const float m = mean[n], s = rstd[n];
    float a = 0.0f, b = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        const float norm = (xr[c] - m) * s;
        const float dnorm = weight ? weight[c] * dyr[c] : dyr[c];
        a += dnorm;
        b += dnorm * norm;
    }
    const float dnorm_mean = block_sum(a, shared) / C;
    const float dnorm_norm_mean = block_sum(b, shared) / C;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        const float norm = (xr[c] - m) * s;
        const float dnorm = weight ? weight[c] * dyr[c] : dyr[c];
        dxr[c] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
    }
}

// dweight, dbias: one thread per column, rows in order (as the CPU).
__global__ void layernorm_backward_params_kernel(float* dweight, float* dbias, const float* dout, const float* x,
                                                 const float* mean, const float* rstd, int N, int C) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    float dw = 0.0f, db = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float dy = dout[(size_t)n * C + c];
        db += dy;
        dw += (x[(size_t)n * C + c] - mean[n]) * rstd[n] * dy;
    }
    if (dweight) dweight[c] += dw;
    if (dbias) dbias[c] += db;
}

}  // namespace

void layernorm_forward_cuda(float* out, float* mean, float* rstd, const float* x, const float* weight,
                            const float* bias, float eps, int N, int C) {
    if (N <= 0 || C <= 0) return;
    layernorm_forward_kernel<<<N, kThreads>>>(out, mean, rstd, x, weight, bias, eps, C);
    CUDA_CHECK_LAUNCH("layernorm_forward_kernel");
}

void layernorm_backward_cuda(float* dx, float* dweight, float* dbias, const float* dout, const float* x,
                             const float* mean, const float* rstd, const float* weight, int N, int C) {
    if (N <= 0 || C <= 0) return;
    if (dx) {
        layernorm_backward_dx_kernel<<<N, kThreads>>>(dx, dout, x, mean, rstd, weight, C);
        CUDA_CHECK_LAUNCH("layernorm_backward_dx_kernel");
    }
    if (dweight || dbias) {
        layernorm_backward_params_kernel<<<ceil_div(C, 128), 128>>>(dweight, dbias, dout, x, mean, rstd, N, C);
        CUDA_CHECK_LAUNCH("layernorm_backward_params_kernel");
    }
}

}  // namespace attend::cuda
