// Device memory: RAII buffers, a bump arena allocated once per run, and host <-> device copies.
//
//   DeviceBuffer<float> x(n);            // cudaMalloc'd, freed by the destructor (move-only)
//   x.upload(host_vector); x.download(host_vector);
//   DeviceArena arena(bytes);            // one cudaMalloc; arena.alloc<float>(n) hands out 256-byte-aligned
//   size_t mark = arena.mark(); ...; arena.release(mark);   // per-step scratch without cudaMalloc per step
//
// Every call is checked (CUDA_CHECK): a failure throws attend::Error naming the call and the sizes.
#pragma once
#include "cuda/cuda_check.h"

#include "error.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attend::cuda {

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t n) : n_(n) {
        if (n > 0) {
            cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T));
            if (err != cudaSuccess) {
                cudaGetLastError();
                throw Error("CUDA error in cudaMalloc of " + std::to_string(n * sizeof(T)) +
                            " bytes (DeviceBuffer): " + cudaGetErrorString(err));
            }
        }
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_);  // never throws from a destructor
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            if (ptr_) cudaFree(ptr_);
            ptr_ = std::exchange(o.ptr_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }

    T* get() { return ptr_; }
    const T* get() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

    void upload(const T* host, size_t n) {
        check_size(n, "upload");
        if (n) CUDA_CHECK(cudaMemcpy(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice));
    }
    void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
    void download(T* host, size_t n) const {
        check_size(n, "download");
        if (n) CUDA_CHECK(cudaMemcpy(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost));
    }
    void download(std::vector<T>& host) const {
        host.resize(n_);
        download(host.data(), n_);
    }
    std::vector<T> to_host() const {
        std::vector<T> h(n_);
        download(h.data(), n_);
        return h;
    }
    void zero() {
        if (n_) CUDA_CHECK(cudaMemset(ptr_, 0, bytes()));
    }

private:
    void check_size(size_t n, const char* what) const {
        if (n > n_)
            throw Error(std::string("DeviceBuffer::") + what + ": " + std::to_string(n) + " elements, buffer holds " +
                        std::to_string(n_));
    }
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

// Activations and scratch, bump-pointer, 256-byte aligned, released by rewinding to a mark (stack order). Memory
// comes in blocks that live as long as the arena: the first of the constructor's size, and a larger one whenever an
// allocation does not fit, so the first steps of a run find its peak and every later step allocates nothing (the
// peak depends on the model and the batch, which the caller cannot size exactly in advance). Offsets count across
// the blocks: a mark is a plain number, and an allocation never straddles two blocks.
class DeviceArena {
public:
    DeviceArena() = default;
    explicit DeviceArena(size_t first_block_bytes);
    ~DeviceArena();
    DeviceArena(const DeviceArena&) = delete;
    DeviceArena& operator=(const DeviceArena&) = delete;

    void* alloc_bytes(size_t bytes, const char* what = "arena allocation");
    template <class T>
    T* alloc(size_t n, const char* what = "arena allocation") {
        return static_cast<T*>(alloc_bytes(n * sizeof(T), what));
    }
    size_t mark() const { return used_; }
    void release(size_t mark);  // frees everything allocated after `mark`
    size_t used() const { return used_; }
    size_t capacity() const;  // bytes in all blocks
    size_t high_water() const { return high_water_; }
    size_t blocks() const { return blocks_.size(); }

private:
    struct Block {
        char* base;
        size_t start, bytes;  // offsets [start, start + bytes) of the arena
    };
    void add_block(size_t bytes, const char* what);
    std::vector<Block> blocks_;
    size_t first_bytes_ = 0, used_ = 0, high_water_ = 0;
};

// Page-locked host memory (cudaMallocHost), grown on demand: the source of asynchronous uploads. A copy from it is
// queued, not waited for, so its contents must stay until the copy has run (the caller waits on an event).
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    ~PinnedBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    // At least n elements; the old contents are lost when it grows.
    T* reserve(size_t n) {
        if (n > n_) {
            if (ptr_) cudaFreeHost(ptr_);
            ptr_ = nullptr;
            n_ = 0;
            CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), n * sizeof(T)));
            n_ = n;
        }
        return ptr_;
    }

private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

// Typed copies for raw device pointers (checked).
template <class T>
void copy_to_device(T* device, const T* host, size_t n) {
    if (n) CUDA_CHECK(cudaMemcpy(device, host, n * sizeof(T), cudaMemcpyHostToDevice));
}
template <class T>
void copy_to_host(T* host, const T* device, size_t n) {
    if (n) CUDA_CHECK(cudaMemcpy(host, device, n * sizeof(T), cudaMemcpyDeviceToHost));
}
template <class T>
void copy_device(T* dst, const T* src, size_t n) {
    if (n) CUDA_CHECK(cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyDeviceToDevice));
}
template <class T>
void zero_device(T* device, size_t n) {
    if (n) CUDA_CHECK(cudaMemset(device, 0, n * sizeof(T)));
}

void device_synchronize();  // cudaDeviceSynchronize, checked

}  // namespace attend::cuda
