#include "train/gemm_simd.h"

#include "kernels/simd.h"

#include <algorithm>
#include <vector>

namespace attend {
namespace {

using simd::kWidth;
using simd::VecF;

constexpr int kRows = 4;  // rows of C a block keeps in registers

// C[rows, cols of one block] += op(A)[rows, K] B[K, cols]; B row-major with stride ldb (op applied already).
// cols: up to 2 kWidth; the columns past them are neither read nor written.
template <int Rows>
void block(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb, int cols, int K) {
    const int n0 = std::min(cols, kWidth), n1 = std::max(0, cols - kWidth);
    VecF c0[Rows], c1[Rows];
    for (int r = 0; r < Rows; r++) {
        c0[r] = n0 == kWidth ? simd::load(C + long(r) * ldc) : simd::load_partial(C + long(r) * ldc, n0, 0.0f);
        c1[r] = n1 == kWidth ? simd::load(C + long(r) * ldc + kWidth)
                : n1 > 0     ? simd::load_partial(C + long(r) * ldc + kWidth, n1, 0.0f)
                             : VecF(0.0f);
    }
    for (int k = 0; k < K; k++) {
        const float* b = B + long(k) * ldb;
        const VecF b0 = n0 == kWidth ? simd::load(b) : simd::load_partial(b, n0, 0.0f);
        const VecF b1 = n1 == kWidth ? simd::load(b + kWidth) : n1 > 0 ? simd::load_partial(b + kWidth, n1, 0.0f) : VecF(0.0f);
        for (int r = 0; r < Rows; r++) {
            const VecF a(transpose_a ? A[long(k) * lda + r] : A[long(r) * lda + k]);
            c0[r] = simd::fma(a, b0, c0[r]);
            if (n1 > 0) c1[r] = simd::fma(a, b1, c1[r]);
        }
    }
    for (int r = 0; r < Rows; r++) {
        if (n0 == kWidth) simd::store(C + long(r) * ldc, c0[r]);
        else simd::store_partial(C + long(r) * ldc, c0[r], n0);
        if (n1 == kWidth) simd::store(C + long(r) * ldc + kWidth, c1[r]);
        else if (n1 > 0) simd::store_partial(C + long(r) * ldc + kWidth, c1[r], n1);
    }
}

void simd_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K) {
    if (M <= 0 || N <= 0) return;
    // op(B) as rows of N contiguous floats: the block reads a row's columns as vectors.
    thread_local std::vector<float> packed;
    if (transpose_b) {
        packed.resize(size_t(K) * N);
        for (int j = 0; j < N; j++)
            for (int k = 0; k < K; k++) packed[size_t(k) * N + j] = B[long(j) * ldb + k];
        B = packed.data();
        ldb = N;
    }
    for (int i = 0; i < M; i += kRows) {
        const int rows = std::min(kRows, M - i);
        const float* a = transpose_a ? A + i : A + long(i) * lda;
        for (int j = 0; j < N; j += 2 * kWidth) {
            const int cols = std::min(2 * kWidth, N - j);
            float* c = C + long(i) * ldc + j;
            switch (rows) {
                case 4: block<4>(c, ldc, a, lda, transpose_a, B + j, ldb, cols, K); break;
                case 3: block<3>(c, ldc, a, lda, transpose_a, B + j, ldb, cols, K); break;
                case 2: block<2>(c, ldc, a, lda, transpose_a, B + j, ldb, cols, K); break;
                default: block<1>(c, ldc, a, lda, transpose_a, B + j, ldb, cols, K); break;
            }
        }
    }
}

const GemmBackend kSimd{[] { return "the core's SIMD kernel"; }, simd_accumulate};

}  // namespace

const GemmBackend* simd_gemm_backend() { return &kSimd; }

}  // namespace attend
