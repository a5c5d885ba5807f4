// The counter-based RNG of core/model/dropout.h on the device: the same SplitMix64 finaliser, the same 24-bit
// uniform, so keep(i) is bit-identical on CPU and GPU for the same (seed, offset + i). tests/cuda/test_dropout_cuda
// checks the masks element by element.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace attend::cuda {

__host__ __device__ __forceinline__ uint64_t mix64_dev(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__host__ __device__ __forceinline__ float uniform_at_dev(uint64_t seed, uint64_t counter) {
    return float(mix64_dev(mix64_dev(seed) ^ counter) >> 40) * (1.0f / 16777216.0f);
}

// The device copy of a Dropout descriptor (p = 0: inactive).
struct DropoutDev {
    float p = 0.0f;
    uint64_t seed = 0;
    uint64_t offset = 0;
    __host__ __device__ bool active() const { return p > 0.0f; }
    __host__ __device__ bool keep(uint64_t i) const { return uniform_at_dev(seed, offset + i) >= p; }
    __host__ __device__ float scale() const { return p < 1.0f ? 1.0f / (1.0f - p) : 0.0f; }
};

}  // namespace attend::cuda
