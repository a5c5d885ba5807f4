#include "kernels/attention.h"

#include "kernels/row_major.h"
#include "kernels/simd.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

namespace attend {

namespace {

using simd::VecF;
using simd::kWidth;

// Tile sizes: large enough for Eigen's GEMM to run near peak, small enough that a query tile's scores, its
// accumulator and one key/value tile stay in L2.
constexpr int kQueryTile = 128;
constexpr int kKeyTile = 256;

// probs[j] = exp(scores[j] - m) / l for j < n (in place).
void normalize_probs_inplace(float* x, int n, float m, float inv_l) {
    const VecF vm(m), vinv(inv_l);
    const int nv = simd::vector_part(n);
    for (int j = 0; j < nv; j += kWidth) simd::store(x + j, simd::exp(simd::load(x + j) - vm) * vinv);
    if (nv < n)
        simd::store_partial(x + nv, simd::exp(simd::load_partial(x + nv, n - nv, simd::kNegInf) - vm) * vinv,
                            n - nv);
}

// Sized for the tiles this call can actually have: a decoding step (Tq = 1) must not pay for zeroing a full
// 128 x 256 score tile on every call.
struct TileScratch {
    std::vector<float> q_scaled, scores, acc, row_max, row_sum;
    TileScratch(int Tq, int Tk, int D)
        : q_scaled((size_t)std::min(kQueryTile, Tq) * D),
          scores((size_t)std::min(kQueryTile, Tq) * std::min(kKeyTile, std::max(Tk, 1))),
          acc((size_t)std::min(kQueryTile, Tq) * D), row_max(std::min(kQueryTile, Tq)), row_sum(std::min(kQueryTile, Tq)) {}
};

// One query tile (rows i0 .. i0+nq-1) of one (batch row b, head h) pair.
void attention_query_tile(TileScratch& s, float* out, float* probs, const float* q, const float* k,
                          const float* v, const AttnMask& mask, int b, int h, int i0, int nq, int H, int Tq,
                          int Tk, int D, float scale, float* row_logsumexp) {
    const size_t bh = (size_t)b * H + h;
    const float* K = k + bh * Tk * D;
    const float* V = v + bh * Tk * D;
    float* probs_tile = probs ? probs + (bh * Tq + i0) * Tk : nullptr;

    MatrixMap q_scaled(s.q_scaled.data(), nq, D);
    q_scaled = ConstMatrixMap(q + (bh * Tq + i0) * D, nq, D) * scale;
    MatrixMap acc(s.acc.data(), nq, D);
    acc.setZero();
    float* row_max = s.row_max.data();
    float* row_sum = s.row_sum.data();
    // Keys beyond every row's valid length / causal limit are never looked at.
    int key_end = mask.empty() ? Tk : 0;
    for (int r = 0; r < nq; ++r) {
        row_max[r] = simd::kNegInf;
        row_sum[r] = 0.0f;
        if (!mask.empty()) key_end = std::max(key_end, attn_mask_key_limit(mask, b, i0 + r, Tq, Tk));
    }

    for (int j0 = 0; j0 < key_end; j0 += kKeyTile) {
        const int nk = std::min(kKeyTile, key_end - j0);
        MatrixMap scores(s.scores.data(), nq, nk);
        scores.noalias() = q_scaled * ConstMatrixMap(K + (size_t)j0 * D, nk, D).transpose();
        for (int r = 0; r < nq; ++r) {
            float* srow = s.scores.data() + (size_t)r * nk;
            if (!mask.empty()) attn_mask_apply(srow, mask, b, h, i0 + r, j0, nk, H, Tq, Tk);
            if (probs_tile) std::memcpy(probs_tile + (size_t)r * Tk + j0, srow, sizeof(float) * nk);
            const float m_new = std::max(row_max[r], simd::max(srow, nk));
            if (m_new == simd::kNegInf) {  // this row has seen only masked keys so far
                std::memset(srow, 0, sizeof(float) * nk);
                continue;
            }
            const float tile_sum = simd::exp_shifted(srow, srow, nk, m_new);
            if (m_new != row_max[r]) {
                const float alpha = std::exp(row_max[r] - m_new);  // 0 when row_max was -inf
                row_sum[r] *= alpha;
                simd::scale(s.acc.data() + (size_t)r * D, D, alpha);
            }
            row_sum[r] += tile_sum;
            row_max[r] = m_new;
        }
        acc.noalias() += scores * ConstMatrixMap(V + (size_t)j0 * D, nk, D);
    }

    for (int r = 0; r < nq; ++r) {
        const size_t row = bh * Tq + i0 + r;
        const bool seen = row_sum[r] > 0.0f;
        const float inv_l = seen ? 1.0f / row_sum[r] : 0.0f;
        std::memcpy(out + row * D, s.acc.data() + (size_t)r * D, sizeof(float) * D);
        simd::scale(out + row * D, D, inv_l);
        if (row_logsumexp) row_logsumexp[row] = seen ? row_max[r] + std::log(row_sum[r]) : simd::kNegInf;
        if (probs_tile) {
            float* prow = probs_tile + (size_t)r * Tk;
            if (seen)
                normalize_probs_inplace(prow, key_end, row_max[r], inv_l);
            else
                std::fill(prow, prow + key_end, 0.0f);
            std::fill(prow + key_end, prow + Tk, 0.0f);
        }
    }
}

}  // namespace

void attention_forward(float* out, float* probs, const float* q, const float* k, const float* v,
                       const AttnMask& mask, int B, int H, int Tq, int Tk, int D, float scale,
                       float* row_logsumexp) {
    if (scale <= 0.0f) scale = 1.0f / std::sqrt((float)D);
    const int query_tiles = (Tq + kQueryTile - 1) / kQueryTile;
    const long long tasks = (long long)B * H * query_tiles;
    const bool parallel = tasks > 1 && (long long)B * H * Tq * Tk * D >= (1 << 16);
#pragma omp parallel if (parallel)
    {
        TileScratch scratch(Tq, Tk, D);
#pragma omp for schedule(dynamic)
        for (long long task = 0; task < tasks; ++task) {
            const int tile = (int)(task % query_tiles);
            const long long bh = task / query_tiles;
            const int i0 = tile * kQueryTile;
            attention_query_tile(scratch, out, probs, q, k, v, mask, (int)(bh / H), (int)(bh % H), i0,
                                 std::min(kQueryTile, Tq - i0), H, Tq, Tk, D, scale, row_logsumexp);
        }
    }
}

}  // namespace attend
