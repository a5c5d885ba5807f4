#include "cuda/softmax_cuda.h"

#include "cuda/attn_mask_cuda.cuh"
#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"

namespace attend::cuda {

namespace {

constexpr int kThreads = 128;

// One block per row. With a mask (masked = true) the row is (b, h, i) of [B, H, Tq, Tk].
template <bool masked>
__global__ void softmax_forward_kernel(float* out, const float* x, AttnMask mask, int H, int Tq, int C) {
    __shared__ float shared[32];
    const long long r = blockIdx.x;
    const float* xr = x + (size_t)r * C;
    float* yr = out + (size_t)r * C;
    int b = 0, h = 0, i = 0, limit = C;
    if (masked) {
        i = int(r % Tq);
        h = int((r / Tq) % H);
        b = int(r / ((long long)Tq * H));
        limit = mask_key_limit(mask, b, i, Tq, C);
    }
    float m = -INFINITY;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        float s = xr[c];
        if (masked) s = mask_score(s, mask, b, h, i, c, limit, H, Tq, C);
        yr[c] = s;  // each thread touches only its own columns, so out may equal x
        m = fmaxf(m, s);
    }
    m = block_max(m, shared);
    if (m == -INFINITY) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) yr[c] = 0.0f;
        return;
    }
    float sum = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        const float e = expf(yr[c] - m);
        yr[c] = e;
        sum += e;
    }
    const float inv = 1.0f / block_sum(sum, shared);
    for (int c = threadIdx.x; c < C; c += blockDim.x) yr[c] *= inv;
}

__global__ void log_softmax_forward_kernel(float* out, const float* x, int C) {
    __shared__ float shared[32];
    const float* xr = x + (size_t)blockIdx.x * C;
    float* yr = out + (size_t)blockIdx.x * C;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < C; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_max(m, shared);
    if (m == -INFINITY) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) yr[c] = -INFINITY;
        return;
    }
    float sum = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) sum += expf(xr[c] - m);
    const float log_sum = logf(block_sum(sum, shared));
    for (int c = threadIdx.x; c < C; c += blockDim.x) yr[c] = (xr[c] - m) - log_sum;  // as the CPU: (x - m) - log
}

__global__ void softmax_backward_kernel(float* dx, const float* dout, const float* out, int C) {
    __shared__ float shared[32];
    const size_t off = (size_t)blockIdx.x * C;
    float dot = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) dot += out[off + c] * dout[off + c];
    dot = block_sum(dot, shared);
    for (int c = threadIdx.x; c < C; c += blockDim.x) dx[off + c] += out[off + c] * (dout[off + c] - dot);
}

__global__ void log_softmax_backward_kernel(float* dx, const float* dout, const float* out, int C) {
    __shared__ float shared[32];
    const size_t off = (size_t)blockIdx.x * C;
    float m = -INFINITY, total = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        m = fmaxf(m, out[off + c]);
        total += dout[off + c];
    }
    m = block_max(m, shared);
    if (m == -INFINITY) return;  // fully masked row
    total = block_sum(total, shared);
    for (int c = threadIdx.x; c < C; c += blockDim.x) dx[off + c] += dout[off + c] - expf(out[off + c]) * total;
}

}  // namespace

void softmax_forward_cuda(float* out, const float* x, int N, int C) {
    if (N <= 0 || C <= 0) return;
    softmax_forward_kernel<false><<<N, kThreads>>>(out, x, AttnMask{}, 1, 1, C);
    CUDA_CHECK_LAUNCH("softmax_forward_kernel");
}

void log_softmax_forward_cuda(float* out, const float* x, int N, int C) {
    if (N <= 0 || C <= 0) return;
    log_softmax_forward_kernel<<<N, kThreads>>>(out, x, C);
    CUDA_CHECK_LAUNCH("log_softmax_forward_kernel");
}

void masked_softmax_forward_cuda(float* out, const float* x, const AttnMask& mask, int B, int H, int Tq, int Tk) {
    const long long rows = (long long)B * H * Tq;
    if (rows <= 0 || Tk <= 0) return;
    softmax_forward_kernel<true><<<(unsigned)rows, kThreads>>>(out, x, mask, H, Tq, Tk);
    CUDA_CHECK_LAUNCH("softmax_forward_kernel<masked>");
}

void softmax_backward_cuda(float* dx, const float* dout, const float* out, int N, int C) {
    if (N <= 0 || C <= 0) return;
    softmax_backward_kernel<<<N, kThreads>>>(dx, dout, out, C);
    CUDA_CHECK_LAUNCH("softmax_backward_kernel");
}

void log_softmax_backward_cuda(float* dx, const float* dout, const float* out, int N, int C) {
    if (N <= 0 || C <= 0) return;
    log_softmax_backward_kernel<<<N, kThreads>>>(dx, dout, out, C);
    CUDA_CHECK_LAUNCH("log_softmax_backward_kernel");
}

}  // namespace attend::cuda
