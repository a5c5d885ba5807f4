// Error checks for every CUDA runtime and cuBLAS call: a failure throws attend::Error naming the call, the file
// and line, and the runtime's own message, e.g.
//   "CUDA error in cudaMalloc(&base, bytes) at native/cuda/device_memory.cu:31: out of memory".
// Kernel launches are checked with CUDA_CHECK_LAUNCH() right after the <<<...>>> (launch configuration errors);
// errors inside a kernel surface at the next synchronising call, which is checked too.
// Set ATTEND_CUDA_SYNC=1 in the environment to synchronise after every launch while debugging, so an error is
// reported at the kernel that caused it.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

namespace attend::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
void check_launch(const char* kernel, const char* file, int line);  // cudaGetLastError (+ sync when debugging)
const char* cublas_status_name(cublasStatus_t status);

}  // namespace attend::cuda

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t attend_cuda_err_ = (call);                                            \
        if (attend_cuda_err_ != cudaSuccess)                                              \
            ::attend::cuda::throw_cuda_error(attend_cuda_err_, #call, __FILE__, __LINE__); \
    } while (0)

#define CUBLAS_CHECK(call)                                                                     \
    do {                                                                                       \
        cublasStatus_t attend_cublas_status_ = (call);                                         \
        if (attend_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                    \
            ::attend::cuda::throw_cublas_error(attend_cublas_status_, #call, __FILE__, __LINE__); \
    } while (0)

// After a kernel launch: CUDA_CHECK_LAUNCH("layernorm_forward_kernel");
#define CUDA_CHECK_LAUNCH(name) ::attend::cuda::check_launch(name, __FILE__, __LINE__)
