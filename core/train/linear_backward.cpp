#include "train/linear_backward.h"
#include "kernels/row_major.h"
#include "model/linear.h"
#include "train/gemm.h"

#include <algorithm>
#include <vector>

namespace attend {

void linear_forward_gemm(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC) {
    if (!x) {
        linear_forward(out, nullptr, weight, bias, N, IC, OC);
        return;
    }
    const bool parallel = double(N) * IC * OC > 1 << 20;
#pragma omp parallel if (parallel)
    {
        const auto [begin, end] = thread_rows(N);
        for (int n = begin; n < end; ++n) {
            float* row = out + long(n) * OC;
            if (bias) std::copy_n(bias, OC, row);
            else std::fill_n(row, OC, 0.0f);
        }
        // out[rows, OC] += x[rows, IC] W[OC, IC]^T
        gemm_accumulate(out + long(begin) * OC, OC, x + long(begin) * IC, IC, false, weight, IC, true, end - begin, OC,
                        IC);
    }
}

void linear_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x, const float* weight,
                     int N, int IC, int OC) {
    if (!x) {
        // The products with a zero input are still taken, not skipped, so that a non-finite dout reaches dweight
        // as it would through an explicit zero input.
        const std::vector<float> zeros(size_t(N) * IC, 0.0f);
        linear_backward(dx, dweight, dbias, dout, zeros.data(), weight, N, IC, OC);
        return;
    }
    const bool parallel = double(N) * IC * OC > 1 << 20;
    // Each thread owns a slice of rows of dx (split over N) and of dweight/dbias (split over OC), so no two
    // threads write the same float and a run repeats bit for bit on the same thread count.
#pragma omp parallel if (parallel)
    {
        if (dx) {
            const auto [begin, end] = thread_rows(N);
            if (end > begin) {
                // dX[rows, IC] += dY[rows, OC] W[OC, IC]
                gemm_accumulate(dx + long(begin) * IC, IC, dout + long(begin) * OC, OC, false, weight, IC, false,
                                end - begin, IC, OC);
            }
        }
        const auto [begin, end] = thread_rows(OC);
        if (end > begin) {
            const int cols = end - begin;
            // dW[cols, IC] += dY[N, cols]^T X[N, IC], dY being the columns [begin, end) of the row-major [N, OC] dout
            gemm_accumulate(dweight + long(begin) * IC, IC, dout + begin, OC, true, x, IC, false, cols, IC, N);
            if (dbias) {
                // Rows added one after another, not Eigen's colwise().sum(): that one's summation order depends on
                // the buffers' alignment, which would make a resumed training run differ in the last bits.
                std::vector<float> sum(cols, 0.0f);
                for (int n = 0; n < N; ++n) {
                    const float* row = dout + long(n) * OC + begin;
                    for (int c = 0; c < cols; ++c) sum[c] += row[c];
                }
                for (int c = 0; c < cols; ++c) dbias[begin + c] += sum[c];
            }
        }
    }
}

}  // namespace attend
