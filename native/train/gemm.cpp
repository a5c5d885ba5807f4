#include "train/gemm.h"
#include "kernels/row_major.h"

#ifdef ATTEND_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <cstdlib>

namespace attend {

#ifdef ATTEND_HAVE_OPENBLAS

void gemm_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K) {
    if (M <= 0 || N <= 0) return;
    cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, M, N,
                K, 1.0f, A, lda, B, ldb, 1.0f, C, ldc);
}

const char* gemm_backend() { return openblas_get_config(); }

namespace {

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

std::string gemm_kernel_note() {
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    if (!forced || !*forced || !cpu_runs_avx512_kernels()) return "";
    const std::string core = openblas_get_corename();
    for (const char* avx512 : {"SkylakeX", "Cooperlake", "SapphireRapids"})
        if (core == avx512) return "";
    return "OPENBLAS_CORETYPE=" + std::string(forced) + " holds OpenBLAS to its " + core +
           " kernels; this CPU runs its AVX-512 ones, which it chooses itself without the variable (faster training)";
}

#else

namespace {
using StridedConst = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using Strided = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
}  // namespace

void gemm_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K) {
    if (M <= 0 || N <= 0) return;
    Strided c(C, M, N, Eigen::OuterStride<>(ldc));
    const StridedConst a(A, transpose_a ? K : M, transpose_a ? M : K, Eigen::OuterStride<>(lda));
    const StridedConst b(B, transpose_b ? N : K, transpose_b ? K : N, Eigen::OuterStride<>(ldb));
    if (transpose_a && transpose_b) c.noalias() += a.transpose() * b.transpose();
    else if (transpose_a) c.noalias() += a.transpose() * b;
    else if (transpose_b) c.noalias() += a * b.transpose();
    else c.noalias() += a * b;
}

const char* gemm_backend() { return "Eigen"; }

std::string gemm_kernel_note() { return ""; }

#endif

}  // namespace attend
