#include "train/devices.h"

#ifdef ATTEND_HAVE_CUDA
#include "cuda/cuda_device.h"
#endif

namespace attend {

CudaAvailability cuda_availability() {
    CudaAvailability a;
#ifdef ATTEND_HAVE_CUDA
    a.compiled = true;
    cuda::DeviceQuery q = cuda::query_devices();
    a.gpus = q.count;
    a.reason = q.reason;
    a.description = q.description;
#else
    a.reason = "this build of attend has no CUDA backend (nvcc was not found when it was configured)";
#endif
    return a;
}

}  // namespace attend
