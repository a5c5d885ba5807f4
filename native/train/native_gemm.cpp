#include "train/native_gemm.h"
#include "train/gemm.h"

#ifdef ATTEND_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <cstdlib>

namespace attend {

#ifdef ATTEND_HAVE_OPENBLAS

namespace {

void openblas_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                         bool transpose_b, int M, int N, int K) {
    if (M <= 0 || N <= 0) return;
    cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, M, N,
                K, 1.0f, A, lda, B, ldb, 1.0f, C, ldc);
}

const GemmBackend kOpenBlas{[]() -> const char* { return openblas_get_config(); }, openblas_accumulate};

// What OpenBLAS's AVX-512 kernels (SkylakeX's, which Cooperlake's and SapphireRapids' extend) need of the CPU and the
// OS; libgcc's answers include the OS's part (AVX-512 state enabled).
bool cpu_runs_avx512_kernels() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

}  // namespace

void use_native_gemm() { set_gemm_backend(&kOpenBlas); }

std::string gemm_kernel_note() {
    if (!cpu_runs_avx512_kernels()) return "";
    const std::string core = openblas_get_corename();
    for (const char* avx512 : {"SkylakeX", "Cooperlake", "SapphireRapids"})
        if (core == avx512) return "";
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    if (forced && *forced)
        return "OPENBLAS_CORETYPE=" + std::string(forced) + " holds OpenBLAS to its " + core +
               " kernels; this CPU runs its AVX-512 ones (OPENBLAS_CORETYPE=SkylakeX, or unset where OpenBLAS "
               "recognises the CPU: faster training)";
    // OpenBLAS picks its kernels from the CPU's family and model numbers; a virtual machine's CPU model it does not
    // know (a generic "Intel Xeon Processor") gets its oldest x86-64 kernels (Prescott, SSE3) at half the speed.
    return "OpenBLAS did not recognise this CPU and runs its " + core +
           " kernels; it runs its AVX-512 ones with OPENBLAS_CORETYPE=SkylakeX (faster training)";
}

#else

void use_native_gemm() { set_gemm_backend(nullptr); }

std::string gemm_kernel_note() { return ""; }

#endif

}  // namespace attend
