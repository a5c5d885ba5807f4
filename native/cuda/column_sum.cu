#include "cuda/column_sum.cuh"

#include "cuda/device_memory.h"

namespace attend::cuda {

float* column_sum_scratch(size_t n) {
    thread_local DeviceBuffer<float> scratch;
    if (scratch.size() < n) scratch = DeviceBuffer<float>(n);
    return scratch.get();
}

namespace {

__global__ void column_totals_kernel(float* out, const float* partials, int slabs, int C) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    float total = 0.0f;
    for (int s = 0; s < slabs; ++s) total += partials[(size_t)s * C + c];
    out[c] += total;
}

}  // namespace

void column_totals_cuda(float* out, const float* partials, int slabs, int C) {
    column_totals_kernel<<<ceil_div(C, 128), 128>>>(out, partials, slabs, C);
    CUDA_CHECK_LAUNCH("column_totals_kernel");
}

}  // namespace attend::cuda
