#include "model/cpu_ops.h"

#include "kernels/simd.h"  // before Eigen: it silences GCC 12's false AVX-512 warnings in Eigen's GEMM

#include <Eigen/Core>

namespace attend {

void CpuOps::attention_forward(float* out, float* probs, const float* q, const float* k, const float* v,
                               const AttnMask& mask, int B, int H, int Tq, int Tk, int D, float scale,
                               float* row_logsumexp, const Dropout* dropout) {
    if (!dropout || !dropout->active()) {
        attend::attention_forward(out, probs, q, k, v, mask, B, H, Tq, Tk, D, scale, row_logsumexp);
        return;
    }
    // The fused kernel never forms the weights; dropout needs them, so form them, drop, and weight the values
    // with one small product per (batch row, head).
    const size_t n = size_t(B) * H * Tq * Tk;
    const ScratchArena::Mark m = mark();
    float* weights = probs ? probs : take_zero(n);
    float* dropped = take(n);
    attend::attention_forward(out, weights, q, k, v, mask, B, H, Tq, Tk, D, scale, row_logsumexp);
    attend::dropout_forward(dropped, weights, *dropout, int64_t(n));
    using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
#pragma omp parallel for schedule(static) if (n * D > (1 << 18))
    for (int bh = 0; bh < B * H; ++bh)
        Eigen::Map<RowMatrix>(out + size_t(bh) * Tq * D, Tq, D).noalias() =
            Eigen::Map<const RowMatrix>(dropped + size_t(bh) * Tq * Tk, Tq, Tk) *
            Eigen::Map<const RowMatrix>(v + size_t(bh) * Tk * D, Tk, D);
    release(m);
}

}  // namespace attend
