// Summing a buffer that lives on this rank's GPU over the ranks of a data-parallel job: the GPU training step's
// gradient reduction (train/train_device.cpp). Two ways:
//   NCCL         one GPU per rank, device to device (NVLink, PCIe, InfiniBand), bootstrapped with an id that rank 0
//                makes (nccl_unique_id) and the caller hands to every rank (over MPI);
//   host         (train/train_device.cpp) a copy to the host, MPI_Allreduce, a copy back: for ranks that share a GPU,
//                which NCCL refuses, and for builds without NCCL.
// Either way every rank ends with the same bits, so every rank's Adam update is the same.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace attend::cuda {

class DeviceAllreduce {
public:
    virtual ~DeviceAllreduce() = default;
    // In place: data [n] on the current device, summed over the ranks. Ordered after the work already queued on the
    // default stream and before the work queued after it.
    virtual void sum(float* data, size_t n) = 0;
    // "NCCL 2.28, 2 ranks" or "host (MPI), 2 ranks".
    virtual std::string describe() const = 0;
};

// True when this build links NCCL.
bool nccl_compiled();

// A new NCCL id (ncclGetUniqueId: 128 opaque bytes) for rank 0 to share. Throws attend::Error without NCCL.
std::string nccl_unique_id();

// This rank's member of the group named by `id`; every rank calls it together, each on its own current device.
// Throws attend::Error with NCCL's reason (two ranks on one GPU, a rank that never joins...).
std::unique_ptr<DeviceAllreduce> make_nccl_allreduce(const std::string& id, int rank, int ranks);

// Makes device `local_rank % devices` this thread's current device (one GPU per rank on a machine with several)
// and returns its index; a string that tells GPUs apart across machines (the PCI bus id and the UUID) goes to
// *identity when it is not null.
int use_device_of_local_rank(int local_rank, std::string* identity = nullptr);

}  // namespace attend::cuda
