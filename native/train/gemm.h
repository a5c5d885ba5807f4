// The training passes' large matrix products. Native builds with GCC link OpenBLAS (its OpenMP build), whose
// kernels run these shapes faster than Eigen's (`attend bench train` says which one a binary uses); other builds
// use Eigen. Called from inside an OpenMP parallel region, OpenBLAS runs on the calling thread alone.
//
// The same call gives the same bits (no order-dependent reductions), which resuming a run relies on; the same
// product split into other blocks may round differently.
#pragma once
#include <string>

namespace attend {

// C += op(A) op(B), all row-major. op(A) is [M, K]: A is [M, K] with row stride lda, or with transpose_a [K, M]
// (row stride lda). op(B) is [K, N]: B is [K, N] (ldb), or with transpose_b [N, K] (ldb). C is [M, N] (ldc).
void gemm_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K);

// "OpenBLAS 0.3.21 ..." (its own configuration string, which names the kernels in use) or "Eigen".
const char* gemm_backend();

// Where the environment's OPENBLAS_CORETYPE holds OpenBLAS to kernels narrower than the CPU runs (AVX2 "Haswell" on
// a CPU with AVX-512, which OpenBLAS would choose itself without the variable: 1.4x the training step on an AMD Zen
// 5), a sentence that says so; "" otherwise. The variable is the user's to keep: this only tells.
std::string gemm_kernel_note();

}  // namespace attend
