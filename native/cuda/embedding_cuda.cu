#include "cuda/embedding_cuda.h"

#include "cuda/cuda_check.h"
#include "cuda/cuda_common.cuh"
#include "error.h"

#include <cub/device/device_radix_sort.cuh>

#include <string>

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

// positions[i] = i: the values the sort carries along with the ids.
__global__ void iota_kernel(int* positions, int N) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) positions[i] = i;
}

// After a stable sort by id, the positions of one id are a run in ascending order. The block of the run's first
// element adds the whole run into the id's row, in position order, and no other block writes that row: the same bits
// every time, and the CPU's order of addition.
__global__ void embedding_backward_runs_kernel(float* dtable, const float* dout, const int* sorted_ids,
                                               const int* sorted_positions, float scale, int padding_idx, int N, int C,
                                               int V) {
    const int i = blockIdx.x;
    const int id = sorted_ids[i];
    if (i > 0 && sorted_ids[i - 1] == id) return;  // not the first of its run
    if (id < 0 || id >= V || id == padding_idx) return;
    float* row = dtable + (size_t)id * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        float acc = row[c];
        for (int j = i; j < N && sorted_ids[j] == id; ++j) acc += scale * dout[(size_t)sorted_positions[j] * C + c];
        row[c] = acc;
    }
}

// The scratch: sorted ids, positions, sorted positions (N ints each, 256-byte aligned), then CUB's temporary storage.
size_t aligned_ints(int N) { return (size_t(N) * sizeof(int) + 255) / 256 * 256; }

size_t sort_temp_bytes(int N) {
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (const int*)nullptr, (int*)nullptr, (const int*)nullptr,
                                               (int*)nullptr, N));
    return bytes;
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

size_t embedding_backward_scratch_bytes(int N) { return N <= 0 ? 0 : 3 * aligned_ints(N) + sort_temp_bytes(N); }

void embedding_backward_cuda(float* dtable, const float* dout, const int* ids, float scale, int padding_idx, int N,
                             int C, int V, void* scratch, size_t scratch_bytes) {
    if (N <= 0 || C <= 0) return;
    if (scratch_bytes < embedding_backward_scratch_bytes(N))
        throw Error("embedding_backward_cuda: " + std::to_string(scratch_bytes) + " bytes of scratch for " +
                    std::to_string(N) + " ids, expected embedding_backward_scratch_bytes = " +
                    std::to_string(embedding_backward_scratch_bytes(N)));
    char* at = static_cast<char*>(scratch);
    int* sorted_ids = reinterpret_cast<int*>(at);
    int* positions = reinterpret_cast<int*>(at + aligned_ints(N));
    int* sorted_positions = reinterpret_cast<int*>(at + 2 * aligned_ints(N));
    void* temp = at + 3 * aligned_ints(N);
    size_t temp_bytes = scratch_bytes - 3 * aligned_ints(N);
    iota_kernel<<<ceil_div(N, 256), 256>>>(positions, N);
    CUDA_CHECK_LAUNCH("iota_kernel (embedding_backward_cuda)");
    // Radix sort is stable: equal ids keep their positions in ascending order.
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, ids, sorted_ids, positions, sorted_positions, N));
    embedding_backward_runs_kernel<<<N, row_threads(C)>>>(dtable, dout, sorted_ids, sorted_positions, scale,
                                                          padding_idx, N, C, V);
    CUDA_CHECK_LAUNCH("embedding_backward_runs_kernel");
}

}  // namespace attend::cuda
