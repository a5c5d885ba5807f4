// Column sums over many rows (bias and layer-norm parameter gradients: out[c] += sum_n term(n, c)), block-parallel
// and deterministic: the same rows always meet in the same order, so a run gives the same bits every time.
//   pass 1  a block per 32 columns x a slab of kColumnSumSlab rows; its 32 x 8 threads each add every 8th row of the
//           slab, and the 8 partials are added in a fixed order: partials [slabs, C];
//   pass 2  a thread per column adds the slabs' partials in slab order into out.
// One thread per column over all rows would leave a GPU nearly idle: C = 128 columns are 128 threads.
#pragma once
#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"

#include <cstddef>

namespace attend::cuda {

constexpr int kColumnSumSlab = 256;
constexpr int kColumnSumRowThreads = 8;

// A device buffer of at least n floats for the partial sums, kept by the calling thread and grown when too small
// (allocation only the first time a size is needed: not on the steady step path).
float* column_sum_scratch(size_t n);

// Term: a copyable functor, `__device__ float operator()(int n, int c) const`.
template <class Term>
__global__ void column_partials_kernel(float* partials, Term term, int N, int C) {
    __shared__ float sums[kColumnSumRowThreads][kWarp + 1];
    const int c = blockIdx.x * kWarp + threadIdx.x;
    const int begin = blockIdx.y * kColumnSumSlab, end = min(N, begin + kColumnSumSlab);
    float sum = 0.0f;
    if (c < C)
        for (int n = begin + threadIdx.y; n < end; n += kColumnSumRowThreads) sum += term(n, c);
    sums[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
        float total = 0.0f;
        for (int k = 0; k < kColumnSumRowThreads; ++k) total += sums[k][threadIdx.x];
        partials[(size_t)blockIdx.y * C + c] = total;
    }
}

// out [C] += sum over s of partials [s, c], in slab order.
void column_totals_cuda(float* out, const float* partials, int slabs, int C);

// out [C] += column sums of term over N rows.
template <class Term>
void column_sum_cuda(float* out, Term term, int N, int C, const char* what) {
    if (N <= 0 || C <= 0) return;
    const int slabs = ceil_div(N, kColumnSumSlab);
    float* partials = column_sum_scratch(size_t(slabs) * C);
    const dim3 grid(ceil_div(C, kWarp), slabs), block(kWarp, kColumnSumRowThreads);
    column_partials_kernel<<<grid, block>>>(partials, term, N, C);
    CUDA_CHECK_LAUNCH(what);
    column_totals_cuda(out, partials, slabs, C);
}

}  // namespace attend::cuda
