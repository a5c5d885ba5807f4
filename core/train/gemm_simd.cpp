#include "train/gemm_simd.h"

#include "kernels/simd.h"

#include <algorithm>
#include <vector>

namespace attend {
namespace {

using simd::kWidth;
using simd::VecF;

// A block is kRows rows of C by up to kVectors vectors of columns: 12 accumulators, the kVectors vectors of a row
// of B and one broadcast element of A stay in registers while k runs (WebAssembly engines give 16 on x86-64;
// 3 x 4 and 6 x 2 measured alike, 4 x 2 was 1.5x slower on the trainers' shapes).
constexpr int kRows = 3;
constexpr int kVectors = 4;

// C[Rows, cols] += op(A)[Rows, K] B[K, V vectors]. B's rows hold V whole vectors (the caller pads B's columns to a
// whole vector), so the loop over k reads no partial vector; only C's last vector may be partial (cols < V kWidth).
template <int Rows, int V>
void block(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb, int cols, int K) {
    VecF c[Rows][V];
    for (int r = 0; r < Rows; r++)
        for (int v = 0; v < V; v++) {
            const int n = cols - v * kWidth;
            float* p = C + long(r) * ldc + v * kWidth;
            c[r][v] = n >= kWidth ? simd::load(p) : simd::load_partial(p, n, 0.0f);
        }
    // Two loops, so that neither tests transpose_a per element.
    if (transpose_a) {
        for (int k = 0; k < K; k++) {
            const float* b = B + long(k) * ldb;
            const float* a = A + long(k) * lda;
            VecF bv[V];
            for (int v = 0; v < V; v++) bv[v] = simd::load(b + v * kWidth);
            for (int r = 0; r < Rows; r++) {
                const VecF ar(a[r]);
                for (int v = 0; v < V; v++) c[r][v] = simd::fma(ar, bv[v], c[r][v]);
            }
        }
    } else {
        for (int k = 0; k < K; k++) {
            const float* b = B + long(k) * ldb;
            VecF bv[V];
            for (int v = 0; v < V; v++) bv[v] = simd::load(b + v * kWidth);
            for (int r = 0; r < Rows; r++) {
                const VecF ar(A[long(r) * lda + k]);
                for (int v = 0; v < V; v++) c[r][v] = simd::fma(ar, bv[v], c[r][v]);
            }
        }
    }
    for (int r = 0; r < Rows; r++)
        for (int v = 0; v < V; v++) {
            const int n = cols - v * kWidth;
            float* p = C + long(r) * ldc + v * kWidth;
            if (n >= kWidth) simd::store(p, c[r][v]);
            else simd::store_partial(p, c[r][v], n);
        }
}

// block<rows, vectors> for rows <= Rows and vectors <= V known only at run time.
template <int Rows, int V>
void block_of(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb, int cols, int K,
              int rows) {
    if constexpr (Rows > 1) {
        if (rows < Rows) return block_of<Rows - 1, V>(C, ldc, A, lda, transpose_a, B, ldb, cols, K, rows);
    }
    if constexpr (V > 1) {
        if (cols <= (V - 1) * kWidth) return block_of<Rows, V - 1>(C, ldc, A, lda, transpose_a, B, ldb, cols, K, rows);
    }
    block<Rows, V>(C, ldc, A, lda, transpose_a, B, ldb, cols, K);
}

void simd_accumulate(float* C, int ldc, const float* A, int lda, bool transpose_a, const float* B, int ldb,
                     bool transpose_b, int M, int N, int K) {
    if (M <= 0 || N <= 0) return;
    // op(B) as rows of whole vectors: transposed, or with its columns padded with zeros to a multiple of kWidth
    // (the padding is multiplied and never stored).
    const int padded = (N + kWidth - 1) / kWidth * kWidth;
    thread_local std::vector<float> packed;
    if (transpose_b || padded != N) {
        packed.assign(size_t(K) * padded, 0.0f);
        if (transpose_b) {
            for (int j = 0; j < N; j++)
                for (int k = 0; k < K; k++) packed[size_t(k) * padded + j] = B[long(j) * ldb + k];
        } else {
            for (int k = 0; k < K; k++) std::copy_n(B + long(k) * ldb, N, packed.begin() + long(k) * padded);
        }
        B = packed.data();
        ldb = padded;
    }
    for (int i = 0; i < M; i += kRows) {
        const int rows = std::min(kRows, M - i);
        const float* a = transpose_a ? A + i : A + long(i) * lda;
        for (int j = 0; j < N; j += kVectors * kWidth) {
            block_of<kRows, kVectors>(C + long(i) * ldc + j, ldc, a, lda, transpose_a, B + j, ldb,
                                      std::min(kVectors * kWidth, N - j), K, rows);
        }
    }
}

const GemmBackend kSimd{[] { return "the core's SIMD kernel"; }, simd_accumulate};

}  // namespace

const GemmBackend* simd_gemm_backend() { return &kSimd; }

}  // namespace attend
