#include "kernels/additive_attention.h"

#include "kernels/masked_softmax.h"
#include "kernels/simd.h"

#include <Eigen/Core>

#include <cstddef>

namespace attend {

using simd::VecF;
using simd::kWidth;

void additive_attention_scores(float* scores, const float* q_proj, const float* k_proj, const float* w_v,
                               int B, int Tq, int Tk, int Hd) {
    const int nv = simd::vector_part(Hd);
    const long long rows = (long long)B * Tq;
#pragma omp parallel for schedule(static) if (rows * Tk * Hd >= (1 << 16))
    for (long long r = 0; r < rows; ++r) {
        const int b = (int)(r / Tq);
        const float* qr = q_proj + (size_t)r * Hd;
        for (int j = 0; j < Tk; ++j) {
            const float* kr = k_proj + ((size_t)b * Tk + j) * Hd;
            VecF acc(0.0f);
            for (int c = 0; c < nv; c += kWidth)
                acc = simd::fma(simd::load(w_v + c), simd::tanh(simd::load(qr + c) + simd::load(kr + c)), acc);
            if (nv < Hd) {
                const int n = Hd - nv;
                // w_v padded with 0 makes the missing lanes contribute nothing.
                acc = simd::fma(simd::load_partial(w_v + nv, n, 0.0f),
                                simd::tanh(simd::load_partial(qr + nv, n, 0.0f) + simd::load_partial(kr + nv, n, 0.0f)),
                                acc);
            }
            scores[(size_t)r * Tk + j] = simd::reduce_sum(acc);
        }
    }
}

void additive_attention_forward(float* out, float* probs, const float* q_proj, const float* k_proj,
                                const float* w_v, const float* values, const AttnMask& mask, int B, int Tq,
                                int Tk, int Hd, int Dv) {
    using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    additive_attention_scores(probs, q_proj, k_proj, w_v, B, Tq, Tk, Hd);
    masked_softmax_forward(probs, probs, mask, B, 1, Tq, Tk);
    for (int b = 0; b < B; ++b) {
        Eigen::Map<RowMatrix> o(out + (size_t)b * Tq * Dv, Tq, Dv);
        o.noalias() = Eigen::Map<const RowMatrix>(probs + (size_t)b * Tq * Tk, Tq, Tk) *
                      Eigen::Map<const RowMatrix>(values + (size_t)b * Tk * Dv, Tk, Dv);
    }
}

}  // namespace attend
