#include "cuda/device_allreduce.h"

#include "cuda/cuda_check.h"
#include "error.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#ifdef ATTEND_HAVE_NCCL
#include <nccl.h>
#endif

namespace attend::cuda {

bool nccl_compiled() {
#ifdef ATTEND_HAVE_NCCL
    return true;
#else
    return false;
#endif
}

int use_device_of_local_rank(int local_rank, std::string* identity) {
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count <= 0) throw Error("no CUDA GPU for this rank");
    const int device = std::max(0, local_rank) % count;
    CUDA_CHECK(cudaSetDevice(device));
    if (identity) {
        cudaDeviceProp prop{};
        CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        char text[128];
        std::snprintf(text, sizeof text, "%04x:%02x:%02x ", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
        *identity = text;
        for (unsigned char byte : prop.uuid.bytes) {
            std::snprintf(text, sizeof text, "%02x", byte);
            *identity += text;
        }
    }
    return device;
}

#ifdef ATTEND_HAVE_NCCL
namespace {

void check_nccl(ncclResult_t rc, const char* call) {
    if (rc == ncclSuccess) return;
    std::string why = ncclGetErrorString(rc);
    if (const char* last = ncclGetLastError(nullptr); last && *last) why += " (" + std::string(last) + ")";
    throw Error(std::string(call) + " failed: " + why);
}

class NcclAllreduce final : public DeviceAllreduce {
public:
    NcclAllreduce(const std::string& id, int rank, int ranks) : ranks_(ranks) {
        ncclUniqueId unique{};
        if (id.size() != sizeof unique.internal)
            throw Error("NCCL id of " + std::to_string(id.size()) + " bytes, expected " +
                        std::to_string(sizeof unique.internal));
        std::memcpy(unique.internal, id.data(), id.size());
        check_nccl(ncclCommInitRank(&comm_, ranks, unique, rank), "ncclCommInitRank");
        int version = 0;
        ncclGetVersion(&version);
        version_ = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100);
    }
    ~NcclAllreduce() override { ncclCommDestroy(comm_); }
    NcclAllreduce(const NcclAllreduce&) = delete;
    NcclAllreduce& operator=(const NcclAllreduce&) = delete;

    void sum(float* data, size_t n) override {
        // The default stream: the gradients are complete once the backward's kernels before it have run, and the
        // clipping and Adam kernels after it see the sum.
        check_nccl(ncclAllReduce(data, data, n, ncclFloat, ncclSum, comm_, cudaStreamLegacy), "ncclAllReduce");
    }
    std::string describe() const override { return "NCCL " + version_ + ", " + std::to_string(ranks_) + " ranks"; }

private:
    ncclComm_t comm_ = nullptr;
    int ranks_ = 1;
    std::string version_;
};

}  // namespace

std::string nccl_unique_id() {
    ncclUniqueId unique{};
    check_nccl(ncclGetUniqueId(&unique), "ncclGetUniqueId");
    return std::string(unique.internal, sizeof unique.internal);
}

std::unique_ptr<DeviceAllreduce> make_nccl_allreduce(const std::string& id, int rank, int ranks) {
    return std::make_unique<NcclAllreduce>(id, rank, ranks);
}
#else
std::string nccl_unique_id() { throw Error("this build has no NCCL (the CUDA toolkit's nccl.h was not found)"); }

std::unique_ptr<DeviceAllreduce> make_nccl_allreduce(const std::string&, int, int) {
    throw Error("this build has no NCCL (the CUDA toolkit's nccl.h was not found)");
}
#endif

}  // namespace attend::cuda
