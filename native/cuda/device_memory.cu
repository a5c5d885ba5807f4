#include "cuda/device_memory.h"

namespace attend::cuda {

namespace {
constexpr size_t kAlign = 256;
size_t round_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

DeviceArena::DeviceArena(size_t bytes) : capacity_(round_up(bytes)) {
    if (capacity_ == 0) return;
    cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&base_), capacity_);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw Error("CUDA error in cudaMalloc of the device arena (" + std::to_string(capacity_ >> 20) +
                    " MiB): " + cudaGetErrorString(err));
    }
}

DeviceArena::~DeviceArena() {
    if (base_) cudaFree(base_);
}

void* DeviceArena::alloc_bytes(size_t bytes, const char* what) {
    const size_t need = round_up(bytes);
    if (used_ + need > capacity_)
        throw Error(std::string("device arena: ") + what + " needs " + std::to_string(bytes) + " bytes, but only " +
                    std::to_string(capacity_ - used_) + " of " + std::to_string(capacity_) + " are free");
    void* p = base_ + used_;
    used_ += need;
    if (used_ > high_water_) high_water_ = used_;
    return p;
}

void DeviceArena::release(size_t mark) {
    if (mark > used_)
        throw Error("device arena: release to mark " + std::to_string(mark) + " beyond the used " +
                    std::to_string(used_) + " bytes");
    used_ = mark;
}

void device_synchronize() { CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace attend::cuda
