#include "cuda/layernorm_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/column_sum.cuh"
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

// The parameters' gradient terms of row n, column c (column_sum_cuda adds them over the rows).
struct NormedTimesGrad {  // dweight: norm * dy
    const float *dout, *x, *mean, *rstd;
    int C;
    __device__ float operator()(int n, int c) const {
        const size_t i = (size_t)n * C + c;
        return (x[i] - mean[n]) * rstd[n] * dout[i];
    }
};
struct Grad {  // dbias: dy
    const float* dout;
    int C;
    __device__ float operator()(int n, int c) const { return dout[(size_t)n * C + c]; }
};

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
    if (dweight)
        column_sum_cuda(dweight, NormedTimesGrad{dout, x, mean, rstd, C}, N, C, "layernorm_backward dweight");
    if (dbias) column_sum_cuda(dbias, Grad{dout, C}, N, C, "layernorm_backward dbias");
}

}  // namespace attend::cuda
