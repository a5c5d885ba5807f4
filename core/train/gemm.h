// The training passes' large matrix products, through one seam: Eigen by default (the core's SIMD kernel in
// WebAssembly SIMD builds, train/gemm_simd.h), or the backend a native build installs (native/train/native_gemm.h: OpenBLAS's OpenMP build under GCC, whose kernels
// run these shapes faster; `attend bench train` says which one a binary uses). Called from inside an OpenMP
// parallel region, OpenBLAS runs on the calling thread alone.
//
// The same call gives the same bits (no order-dependent reductions), which resuming a run relies on; the same
// product split into other blocks may round differently, and so may another backend: a run keeps one.
#pragma once

namespace attend {

// C += op(A) op(B), all row-major. op(A) is [M, K]: A is [M, K] with row stride lda, or with transpose_a [K, M]
// (row stride lda). op(B) is [K, N]: B is [K, N] (ldb), or with transpose_b [N, K] (ldb). C is [M, N] (ldc).
void gemm_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K);

// "OpenBLAS 0.3.21 ..." (its own configuration string, which names the kernels in use), "Eigen", or the core's
// SIMD kernel.
const char* gemm_backend();

// Another implementation of gemm_accumulate, with the same contract.
struct GemmBackend {
    const char* (*name)();
    void (*accumulate)(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                       bool transpose_b, int M, int N, int K);
};

// Every later product goes through `backend` (which must outlive its use); null: the build's default again.
void set_gemm_backend(const GemmBackend* backend);

}  // namespace attend
