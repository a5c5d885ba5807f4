#include "train/attention_backward.h"
#include "kernels/row_major.h"
#include "train/gemm.h"

#include <cmath>
#include <vector>

namespace attend {
namespace {

#if defined(__wasm_simd128__)
// WebAssembly SIMD: Eigen's products run scalar there, the core's SIMD GEMM (gemm_accumulate's default) does not.
constexpr bool kGemmSeam = true;
#else
constexpr bool kGemmSeam = false;
#endif

}  // namespace

void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                        const float* v, const float* out, const float* row_logsumexp, const AttnMask& mask, int B,
                        int H, int Tq, int Tk, int D, float scale, const Dropout* dropout) {
    if (scale <= 0.0f) scale = 1.0f / std::sqrt(float(D));
    const bool dropping = dropout && dropout->active();
    const float keep_scale = dropping ? dropout->scale() : 1.0f;
    // One (batch row, head) pair per task: they write disjoint slices of dq, dk and dv.
#pragma omp parallel if ((long long)B * H * Tq * Tk * D > (1 << 15))
    {
        RowMatrix P(Tq, Tk), dP(Tq, Tk), kept(dropping ? Tq : 0, dropping ? Tk : 0), Qs(kGemmSeam ? Tq : 0, D);
#pragma omp for schedule(static)
        for (int bh = 0; bh < B * H; ++bh) {
            const int b = bh / H, h = bh % H;
            const size_t q_off = (size_t)bh * Tq * D, k_off = (size_t)bh * Tk * D;
            ConstMatrixMap Q(q + q_off, Tq, D), K(k + k_off, Tk, D), V(v + k_off, Tk, D);
            ConstMatrixMap dO(dout + q_off, Tq, D);
            const float* lse = row_logsumexp + (size_t)bh * Tq;

            if constexpr (kGemmSeam) {
                Qs = Q * scale;
                P.setZero();
                dP.setZero();
                gemm_accumulate(P.data(), Tk, Qs.data(), D, false, k + k_off, D, true, Tq, Tk, D);
                gemm_accumulate(dP.data(), Tk, dout + q_off, D, false, v + k_off, D, true, Tq, Tk, D);
            } else {
                P.noalias() = (Q * scale) * K.transpose();
                dP.noalias() = dO * V.transpose();
            }
            for (int i = 0; i < Tq; ++i) {
                float* p = P.data() + (size_t)i * Tk;
                float* dp = dP.data() + (size_t)i * Tk;
                if (dropping) kept.row(i).setZero();
                if (std::isinf(lse[i])) {  // fully masked row: no probabilities, no gradient
                    for (int j = 0; j < Tk; ++j) p[j] = dp[j] = 0.0f;
                    continue;
                }
                if (!mask.empty()) attn_mask_apply(p, mask, b, h, i, 0, Tk, H, Tq, Tk);
                for (int j = 0; j < Tk; ++j) p[j] = std::exp(p[j] - lse[i]);  // masked entries are -inf -> 0
                float delta;
                if (dropping) {
                    // O = (P * M) V with M = keep / (1 - p): the gradient reaching P is dP * M, and
                    // delta_i = sum_j P_ij (dP M)_ij no longer equals dO_i . O_i.
                    float* m = kept.data() + (size_t)i * Tk;
                    const uint64_t row = ((uint64_t)bh * Tq + i) * Tk;
                    delta = 0.0f;
                    for (int j = 0; j < Tk; ++j) {
                        m[j] = dropout->keep(row + j) ? keep_scale : 0.0f;
                        dp[j] *= m[j];
                        delta += p[j] * dp[j];
                    }
                } else {
                    // delta_i = sum_j P_ij dP_ij = dO_i . O_i (O = P V), so no pass over P is needed for it.
                    // A plain loop, not Eigen's dot: Eigen peels unaligned leading elements, so its sum order (and
                    // the last bits of the result) would depend on where the buffers happen to sit in memory.
                    const float* o_row = out + q_off + (size_t)i * D;
                    const float* do_row = dO.data() + (size_t)i * D;
                    delta = 0.0f;
                    for (int d = 0; d < D; ++d) delta += o_row[d] * do_row[d];
                }
                for (int j = 0; j < Tk; ++j) dp[j] = p[j] * (dp[j] - delta);  // dS, still without the scale
            }
            // P still holds the probabilities (dS went to dP): dV = (P M)^T dO.
            if constexpr (kGemmSeam) {
                if (dropping) P = P.cwiseProduct(kept);
                dP *= scale;
                gemm_accumulate(dv + k_off, D, P.data(), Tk, true, dout + q_off, D, false, Tk, D, Tq);
                gemm_accumulate(dq + q_off, D, dP.data(), Tk, false, k + k_off, D, false, Tq, D, Tk);
                gemm_accumulate(dk + k_off, D, dP.data(), Tk, true, q + q_off, D, false, Tk, D, Tq);
                continue;
            }
            if (dropping)
                MatrixMap(dv + k_off, Tk, D).noalias() += (P.cwiseProduct(kept)).transpose() * dO;
            else
                MatrixMap(dv + k_off, Tk, D).noalias() += P.transpose() * dO;
            MatrixMap(dq + q_off, Tq, D).noalias() += (dP * scale) * K;
            MatrixMap(dk + k_off, Tk, D).noalias() += (dP.transpose() * scale) * Q;
        }
    }
}

}  // namespace attend
