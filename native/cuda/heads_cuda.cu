#include "cuda/heads_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"

namespace attend::cuda {

namespace {

// One thread per element of [B,H,T,D]; split: gather from rows, merge: scatter into rows.
template <bool split>
__global__ void heads_kernel(float* out, const float* x, int B, int T, int H, int D, int row_stride) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)B * H * T * D) return;
    const int d = int(i % D);
    const int t = int((i / D) % T);
    const int h = int((i / ((long long)D * T)) % H);
    const int b = int(i / ((long long)D * T * H));
    const size_t row = ((size_t)b * T + t) * row_stride + (size_t)h * D + d;
    if (split)
        out[i] = x[row];
    else
        out[row] = x[i];
}

}  // namespace

void split_heads_cuda(float* out, const float* x, int B, int T, int H, int D, int row_stride) {
    if (row_stride == 0) row_stride = H * D;
    const long long n = (long long)B * H * T * D;
    if (n <= 0) return;
    heads_kernel<true><<<ceil_div(n, 256), 256>>>(out, x, B, T, H, D, row_stride);
    CUDA_CHECK_LAUNCH("heads_kernel<split>");
}

void merge_heads_cuda(float* out, const float* x, int B, int T, int H, int D, int row_stride) {
    if (row_stride == 0) row_stride = H * D;
    const long long n = (long long)B * H * T * D;
    if (n <= 0) return;
    heads_kernel<false><<<ceil_div(n, 256), 256>>>(out, x, B, T, H, D, row_stride);
    CUDA_CHECK_LAUNCH("heads_kernel<merge>");
}

}  // namespace attend::cuda
