#include "cuda/cross_entropy_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"
#include "cuda/device_memory.h"

namespace attend::cuda {

namespace {

constexpr int kThreads = 256;

// The loss of one row from its max m, sum of exp(z - m) and sum of logits (see below); NaN for a target outside
// [0, V) that is not ignore_index, 0 for an ignored row.
__device__ float row_loss(const float* z, int y, int ignore_index, float smoothing, float m, float sum, double zsum,
                          int V) {
    if (y == ignore_index) return 0.0f;
    if (y < 0 || y >= V) return NAN;
    const double lse = double(m + logf(sum));  // the CPU's softmax_row returns m + log(total) in float
    const double nll = lse - double(z[y]);
    return smoothing == 0.0f ? float(nll) : float((1.0 - smoothing) * nll + double(smoothing) * (lse - zsum / V));
}

struct RowMaxSum {
    float m;
    double zsum;  // in double, as the CPU's sum of -log p
};

// A row's maximum and sum of logits, reduced over the block: every thread gets both.
__device__ RowMaxSum row_max_and_sum(const float* z, int V, float* shared, double* shared_d) {
    float m = -INFINITY;
    double zsum = 0.0;
    for (int c = threadIdx.x; c < V; c += blockDim.x) {
        m = fmaxf(m, z[c]);
        zsum += z[c];
    }
    return {block_max(m, shared), block_sum(zsum, shared_d)};
}

// One block per row. row_loss (loss.cpp): lse = m + log(sum exp(z - m)); nll = lse - z[y];
// smoothed: (1 - s) nll + s / V * sum_c (lse - z[c]) = (1 - s) nll + s (lse - mean(z)).
__global__ void cross_entropy_forward_kernel(float* losses, float* probs, const float* logits, const int* targets,
                                             int ignore_index, float smoothing, int V) {
    __shared__ float shared[32];
    __shared__ double shared_d[32];
    const int n = blockIdx.x;
    const float* z = logits + (size_t)n * V;
    float* p = probs + (size_t)n * V;
    const auto [m, zsum] = row_max_and_sum(z, V, shared, shared_d);
    float sum = 0.0f;
    for (int c = threadIdx.x; c < V; c += blockDim.x) {
        const float e = expf(z[c] - m);
        p[c] = e;
        sum += e;
    }
    sum = block_sum(sum, shared);
    const float inv = 1.0f / sum;
    for (int c = threadIdx.x; c < V; c += blockDim.x) p[c] *= inv;
    if (threadIdx.x == 0 && losses) losses[n] = row_loss(z, targets[n], ignore_index, smoothing, m, sum, zsum, V);
}

// One block per row: cross_entropy_forward_kernel's loss, then the row's gradient written over its own logits (the
// softmax recomputed, as cheap as reading it back). The loss reads z[y] before any thread overwrites the row.
__global__ void cross_entropy_fused_kernel(float* losses, float* logits, const int* targets, int ignore_index,
                                           float smoothing, float dloss, int V) {
    __shared__ float shared[32];
    __shared__ double shared_d[32];
    const int n = blockIdx.x;
    float* z = logits + (size_t)n * V;
    const auto [m, zsum] = row_max_and_sum(z, V, shared, shared_d);
    float sum = 0.0f;
    for (int c = threadIdx.x; c < V; c += blockDim.x) sum += expf(z[c] - m);
    sum = block_sum(sum, shared);
    const float inv = 1.0f / sum;
    const int y = targets[n];
    if (threadIdx.x == 0 && losses) losses[n] = row_loss(z, y, ignore_index, smoothing, m, sum, zsum, V);
    __syncthreads();
    const bool counted = y != ignore_index && y >= 0 && y < V;
    const float uniform = dloss * smoothing / float(V);
    for (int c = threadIdx.x; c < V; c += blockDim.x) {
        float d = 0.0f;
        if (counted) {
            const float p = expf(z[c] - m) * inv;
            d = dloss * p - uniform;
            if (c == y) d -= dloss * (1.0f - smoothing);
        }
        z[c] = d;
    }
}

// total = sum of the losses in double: one block, each thread a strided share, the shares added in a fixed order
// (deterministic).
constexpr int kSumThreads = 1024;
__global__ void sum_losses_kernel(double* total, const float* losses, int N) {
    __shared__ double shared[kWarp];
    double t = 0.0;
    for (int n = threadIdx.x; n < N; n += blockDim.x) t += losses[n];
    t = block_sum(t, shared);
    if (threadIdx.x == 0) *total = t;
}

__global__ void cross_entropy_backward_kernel(float* dlogits, const float* dlosses, float dloss, const float* probs,
                                              const int* targets, int ignore_index, float smoothing, int V) {
    const int n = blockIdx.x;
    const int y = targets[n];
    if (y == ignore_index || y < 0 || y >= V) return;
    const float g = dlosses ? dlosses[n] : dloss;
    const float uniform = g * smoothing / float(V);
    float* dz = dlogits + (size_t)n * V;
    const float* p = probs + (size_t)n * V;
    for (int c = threadIdx.x; c < V; c += blockDim.x) {
        float d = g * p[c] - uniform;
        if (c == y) d -= g * (1.0f - smoothing);
        dz[c] += d;
    }
}

// Runs rows(losses), a kernel writing the row losses [N] (into a buffer of its own when the caller keeps none but
// wants the total), then sums them into total when asked.
template <class Rows>
void row_losses_and_total(float* losses, double* total, int N, Rows rows) {
    if (N <= 0) {
        if (total) zero_device(total, 1);
        return;
    }
    DeviceBuffer<float> own;
    if (!losses && total) {
        own = DeviceBuffer<float>(N);
        losses = own.get();
    }
    rows(losses);
    if (total) {
        sum_losses_kernel<<<1, kSumThreads>>>(total, losses, N);
        CUDA_CHECK_LAUNCH("sum_losses_kernel");
    }
}

}  // namespace

void cross_entropy_forward_cuda(float* losses, float* probs, double* total, const float* logits, const int* targets,
                                int ignore_index, float label_smoothing, int N, int V) {
    row_losses_and_total(losses, total, N, [&](float* row_losses) {
        cross_entropy_forward_kernel<<<N, kThreads>>>(row_losses, probs, logits, targets, ignore_index,
                                                      label_smoothing, V);
        CUDA_CHECK_LAUNCH("cross_entropy_forward_kernel");
    });
}

void cross_entropy_fused_cuda(float* losses, double* total, float* logits, const int* targets, int ignore_index,
                              float label_smoothing, float dloss, int N, int V) {
    row_losses_and_total(losses, total, N, [&](float* row_losses) {
        cross_entropy_fused_kernel<<<N, kThreads>>>(row_losses, logits, targets, ignore_index, label_smoothing, dloss,
                                                    V);
        CUDA_CHECK_LAUNCH("cross_entropy_fused_kernel");
    });
}

void cross_entropy_backward_cuda(float* dlogits, const float* dlosses, float dloss, const float* probs,
                                 const int* targets, int ignore_index, float label_smoothing, int N, int V) {
    if (N <= 0) return;
    cross_entropy_backward_kernel<<<N, kThreads>>>(dlogits, dlosses, dloss, probs, targets, ignore_index,
                                                   label_smoothing, V);
    CUDA_CHECK_LAUNCH("cross_entropy_backward_kernel");
}

}  // namespace attend::cuda
