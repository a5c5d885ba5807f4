#include "cuda/embedding_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"

namespace attend::cuda {

namespace {

// One block per row n, threads over C.
__global__ void embedding_forward_kernel(float* out, const int* ids, const float* table, float scale, int C, int V) {
    const int n = blockIdx.x;
    const int id = ids[n];
    float* y = out + (size_t)n * C;
    if (id < 0 || id >= V) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) y[c] = NAN;
        return;
    }
    const float* row = table + (size_t)id * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x) y[c] = row[c] * scale;
}

// One thread per element of [B,T,C]; the CPU computes inv_freq = 1.0f / std::pow(10000.0f, (float)c / (float)C)
// and angle = (float)(t0 + t) * inv_freq in float. The power is taken in double and rounded once, i.e. the correctly
// rounded powf (glibc's powf nearly always is), not CUDA's powf (up to 2 ulp off): one ulp of inv_freq would move
// the angle of position 150 by 1e-5.
__global__ void positional_encoding_add_kernel(float* x, int B, int T, int C, int t0) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)B * T * C) return;
    const int c = int(i % C);
    const int t = int((i / C) % T);
    const int c_even = c & ~1;
    const float exponent = (float)c_even / (float)C;
    const float inv_freq = 1.0f / (float)pow(10000.0, (double)exponent);
    const float angle = (float)(t0 + t) * inv_freq;
    x[i] += (c & 1) ? cosf(angle) : sinf(angle);
}

__global__ void embedding_backward_kernel(float* dtable, const float* dout, const int* ids, float scale,
                                          int padding_idx, int C, int V) {
    const int n = blockIdx.x;
    const int id = ids[n];
    if (id < 0 || id >= V || id == padding_idx) return;
    float* row = dtable + (size_t)id * C;
    const float* g = dout + (size_t)n * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x) atomicAdd(row + c, scale * g[c]);
}

int row_threads(int C) { return C >= 256 ? 256 : (C >= 128 ? 128 : (C > 32 ? 64 : 32)); }

}  // namespace

void embedding_forward_cuda(float* out, const int* ids, const float* table, float scale, int N, int C, int V) {
    if (N <= 0 || C <= 0) return;
    embedding_forward_kernel<<<N, row_threads(C)>>>(out, ids, table, scale, C, V);
    CUDA_CHECK_LAUNCH("embedding_forward_kernel");
}

void positional_encoding_add_cuda(float* x, int B, int T, int C, int t0) {
    const long long n = (long long)B * T * C;
    if (n <= 0) return;
    positional_encoding_add_kernel<<<ceil_div(n, 256), 256>>>(x, B, T, C, t0);
    CUDA_CHECK_LAUNCH("positional_encoding_add_kernel");
}

void embedding_backward_cuda(float* dtable, const float* dout, const int* ids, float scale, int padding_idx, int N,
                             int C, int V) {
    if (N <= 0 || C <= 0) return;
    embedding_backward_kernel<<<N, row_threads(C)>>>(dtable, dout, ids, scale, padding_idx, C, V);
    CUDA_CHECK_LAUNCH("embedding_backward_kernel");
}

}  // namespace attend::cuda
