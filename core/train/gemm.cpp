#include "train/gemm.h"
#include "kernels/row_major.h"
#include "train/gemm_simd.h"

#include <atomic>

namespace attend {
namespace {

using StridedConst = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using Strided = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;

void eigen_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
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

const GemmBackend kEigen{[] { return "Eigen"; }, eigen_accumulate};

// WebAssembly SIMD: Eigen's GEMM is scalar there, the core's kernel is not.
const GemmBackend* default_backend() {
#if defined(__wasm_simd128__)
    return simd_gemm_backend();
#else
    return &kEigen;
#endif
}

std::atomic<const GemmBackend*> g_backend{default_backend()};

}  // namespace

void gemm_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K) {
    g_backend.load(std::memory_order_relaxed)->accumulate(C, ldc, A, lda, transpose_a, B, ldb, transpose_b, M, N, K);
}

const char* gemm_backend() { return g_backend.load(std::memory_order_relaxed)->name(); }

void set_gemm_backend(const GemmBackend* backend) { g_backend.store(backend ? backend : default_backend()); }

}  // namespace attend
