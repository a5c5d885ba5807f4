#include "train/gemm.h"
#include "kernels/row_major.h"

#ifdef ATTEND_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace attend {

#ifdef ATTEND_HAVE_OPENBLAS

void gemm_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K) {
    if (M <= 0 || N <= 0) return;
    cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, M, N,
                K, 1.0f, A, lda, B, ldb, 1.0f, C, ldc);
}

const char* gemm_backend() { return openblas_get_config(); }

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

#endif

}  // namespace attend
