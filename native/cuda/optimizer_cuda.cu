#include "cuda/optimizer_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"
#include "cuda/device_memory.h"

#include <cmath>

namespace attend::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__global__ void adam_update_kernel(float* params, float* m, float* v, const float* grads, size_t n, float beta1,
                                   float beta2, float eps, float step_size, float inv_sqrt_bias2, float decay,
                                   float l2) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float p = params[i] * decay;
    const float g = grads[i] + l2 * params[i];
    const float mi = beta1 * m[i] + (1.0f - beta1) * g;
    const float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    const float denom = sqrtf(vi) * inv_sqrt_bias2 + eps;
    params[i] = p - step_size * mi / denom;
}

// partials[block] = sum of g^2 over a grid-stride slice.
__global__ void sum_squares_kernel(double* partials, const float* g, size_t n) {
    __shared__ double shared[32];
    double s = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        s += double(g[i]) * g[i];
    s = block_sum(s, shared);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void finish_norm_kernel(double* norm, const double* partials, int blocks) {
    if (threadIdx.x != 0) return;
    double s = 0.0;
    for (int b = 0; b < blocks; ++b) s += partials[b];
    *norm = sqrt(s);
}

__global__ void clip_kernel(float* g, size_t n, const double* norm, double theta) {
    const double nrm = *norm;
    if (!(nrm > theta)) return;
    const float scale = float(theta / nrm);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        g[i] *= scale;
}

int norm_blocks(size_t n) {
    const long long b = ((long long)n + kThreads - 1) / kThreads;
    return int(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

}  // namespace

void adam_update_cuda(float* params, float* m, float* v, const float* grads, size_t n, int64_t t, float lr,
                      const AdamConfig& c) {
    if (n == 0) return;
    // The same host-side constants as the CPU's adam_update.
    const double bias1 = 1.0 - std::pow(double(c.beta1), double(t));
    const double bias2 = 1.0 - std::pow(double(c.beta2), double(t));
    const float step_size = float(lr / bias1);
    const float inv_sqrt_bias2 = float(1.0 / std::sqrt(bias2));
    const float decay = c.decoupled ? 1.0f - lr * c.weight_decay : 1.0f;
    const float l2 = c.decoupled ? 0.0f : c.weight_decay;
    adam_update_kernel<<<ceil_div((long long)n, kThreads), kThreads>>>(params, m, v, grads, n, c.beta1, c.beta2, c.eps,
                                                                       step_size, inv_sqrt_bias2, decay, l2);
    CUDA_CHECK_LAUNCH("adam_update_kernel");
}

size_t global_grad_norm_partials(size_t n) { return size_t(norm_blocks(n)); }

void global_grad_norm_cuda(double* norm, const float* grads, size_t n, double* partials) {
    const int blocks = norm_blocks(n);
    DeviceBuffer<double> own;
    if (!partials) {
        own = DeviceBuffer<double>(blocks);
        partials = own.get();
    }
    sum_squares_kernel<<<blocks, kThreads>>>(partials, grads, n);
    CUDA_CHECK_LAUNCH("sum_squares_kernel (global_grad_norm_cuda)");
    finish_norm_kernel<<<1, 32>>>(norm, partials, blocks);
    CUDA_CHECK_LAUNCH("finish_norm_kernel (global_grad_norm_cuda)");
}

void clip_grad_norm_cuda(double* norm, float* grads, size_t n, double theta, double* partials) {
    global_grad_norm_cuda(norm, grads, n, partials);
    if (n == 0) return;
    clip_kernel<<<norm_blocks(n), kThreads>>>(grads, n, norm, theta);
    CUDA_CHECK_LAUNCH("clip_kernel (clip_grad_norm_cuda)");
}

}  // namespace attend::cuda
