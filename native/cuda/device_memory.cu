#include "cuda/device_memory.h"

#include <algorithm>

namespace attend::cuda {

namespace {
constexpr size_t kAlign = 256;
size_t round_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

DeviceArena::DeviceArena(size_t first_block_bytes) : first_bytes_(round_up(first_block_bytes)) {
    if (first_bytes_ > 0) add_block(first_bytes_, "the first block");
}

DeviceArena::~DeviceArena() {
    for (const Block& b : blocks_) cudaFree(b.base);
}

size_t DeviceArena::capacity() const { return blocks_.empty() ? 0 : blocks_.back().start + blocks_.back().bytes; }

void DeviceArena::add_block(size_t bytes, const char* what) {
    char* base = nullptr;
    cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&base), bytes);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw Error(std::string("device arena: ") + what + " needs a block of " + std::to_string(bytes >> 20) +
                    " MiB beside the " + std::to_string(capacity() >> 20) + " MiB it holds: " +
                    cudaGetErrorString(err));
    }
    blocks_.push_back({base, capacity(), bytes});
}

void* DeviceArena::alloc_bytes(size_t bytes, const char* what) {
    const size_t need = round_up(bytes);
    // The block holding offset used_ (the last whose start is at or before it).
    size_t i = 0;
    while (i + 1 < blocks_.size() && blocks_[i + 1].start <= used_) ++i;
    for (;; ++i) {
        if (i == blocks_.size()) add_block(std::max({need, first_bytes_, capacity()}), what);  // at least doubles
        const Block& b = blocks_[i];
        const size_t at = std::max(used_, b.start);
        if (at + need <= b.start + b.bytes) {
            used_ = at + need;
            high_water_ = std::max(high_water_, used_);
            return b.base + (at - b.start);
        }
    }
}

void DeviceArena::release(size_t mark) {
    if (mark > used_)
        throw Error("device arena: release to mark " + std::to_string(mark) + " beyond the used " +
                    std::to_string(used_) + " bytes");
    used_ = mark;
}

void device_synchronize() { CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace attend::cuda
