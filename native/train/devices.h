// Which compute devices this build of Attend can use: the CPU always, CUDA GPUs when built with nvcc and a
// GPU and driver are present.
#pragma once
#include <string>

namespace attend {

struct CudaAvailability {
    bool compiled = false;   // built with the CUDA backend
    int gpus = 0;            // usable GPUs found at run time
    std::string reason;      // why gpus == 0
    std::string description;
};

CudaAvailability cuda_availability();

}  // namespace attend
