#include "cuda/cuda_check.h"

#include "error.h"

#include <cstdlib>
#include <cstring>

namespace attend::cuda {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
    cudaGetLastError();  // clear a non-sticky error so that the caller can go on (e.g. after out of memory)
    throw Error(std::string("CUDA error in ") + call + " at " + file + ":" + std::to_string(line) + ": " +
                cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")");
}

const char* cublas_status_name(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED (no GPU or driver?)";
        case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE (a size or leading dimension)";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
        default: return "unknown cuBLAS status";
    }
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
    throw Error(std::string("cuBLAS error in ") + call + " at " + file + ":" + std::to_string(line) + ": " +
                cublas_status_name(status) + " (" + std::to_string(int(status)) + ")");
}

void check_launch(const char* kernel, const char* file, int line) {
    static const bool sync = [] {
        const char* s = std::getenv("ATTEND_CUDA_SYNC");
        return s && std::strcmp(s, "0") != 0;
    }();
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess && sync) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) throw_cuda_error(err, kernel, file, line);
}

}  // namespace attend::cuda
