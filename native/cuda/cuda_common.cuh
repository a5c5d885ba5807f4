// Device helpers shared by the kernels (.cu files only): launch sizes, warp and block reductions, -inf.
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

namespace attend::cuda {

constexpr int kWarp = 32;

inline int ceil_div(long long a, long long b) { return int((a + b - 1) / b); }

__device__ __forceinline__ float neg_inf() { return -INFINITY; }

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ double warp_sum(double v) {
    for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int o = kWarp / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Sum / max over the whole block (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
// `shared` holds 32 values; the call ends with the shared memory free for reuse.
template <class T>
__device__ T block_sum(T v, T* shared) {
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    T total = T(0);
    for (int w = 0; w < warps; ++w) total += shared[w];  // same order in every thread: deterministic
    __syncthreads();
    return total;
}
__device__ inline float block_max(float v, float* shared) {
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
    v = warp_max(v);
    __syncthreads();
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    float m = -INFINITY;
    for (int w = 0; w < warps; ++w) m = fmaxf(m, shared[w]);
    __syncthreads();
    return m;
}

}  // namespace attend::cuda
