#include "cuda/cuda_device.h"

#include <cuda_runtime.h>
#include <cstdio>

namespace attend::cuda {

DeviceQuery query_devices() {
    DeviceQuery q;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        q.reason = std::string("CUDA runtime: ") + cudaGetErrorString(err);
        cudaGetLastError();  // clear the sticky error so later calls start clean
        return q;
    }
    if (count == 0) {
        q.reason = "CUDA runtime found no GPU";
        return q;
    }
    q.count = count;
    for (int i = 0; i < count; i++) {
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, i);
        char line[256];
        std::snprintf(line, sizeof line, "cuda:%d %s, %.1f GiB, compute capability %d.%d\n", i, prop.name,
                      prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), prop.major, prop.minor);
        q.description += line;
    }
    return q;
}

}  // namespace attend::cuda
