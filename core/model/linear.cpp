#include "model/linear.h"
#include "kernels/linear_rows.h"
#include "kernels/row_major.h"
#if defined(__EMSCRIPTEN__) && defined(__wasm_simd128__)
#include "train/linear_backward.h"
#endif

namespace attend {

void linear_forward(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC) {
    if (!x) {
        for (int n = 0; n < N; ++n)
            for (int j = 0; j < OC; ++j) out[long(n) * OC + j] = bias ? bias[j] : 0.0f;
        return;
    }
#if defined(__EMSCRIPTEN__) && defined(__wasm_simd128__)
    // In WebAssembly SIMD Eigen's products run scalar: a few rows (a sentence in the encoder, a beam) run several
    // times faster through the xsimd kernel that reads each weight row once, from 32 rows (a training batch) the
    // core's register-blocked SIMD GEMM is faster (1.1x at 32 rows, 1.5x at 64).
    if (N < 32) {
        linear_rows_forward(out, x, weight, bias, N, IC, OC);
        return;
    }
    linear_forward_gemm(out, x, weight, bias, N, IC, OC);  // gemm_accumulate: the SIMD GEMM in this build
    return;
#endif
    ConstMatrixMap W(weight, OC, IC);
    // Below ~1 MFLOP a second thread costs more than it saves.
    [[maybe_unused]] const bool parallel = double(N) * IC * OC > 1 << 20;  // unused without OpenMP (wasm)
#pragma omp parallel if (parallel)
    {
        const auto [begin, end] = thread_rows(N);
        const int rows = end - begin;
        if (rows > 0) {
            ConstMatrixMap X(x + long(begin) * IC, rows, IC);
            MatrixMap Y(out + long(begin) * OC, rows, OC);
            Y.noalias() = X * W.transpose();
            if (bias) Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, OC);
        }
    }
}

}  // namespace attend
