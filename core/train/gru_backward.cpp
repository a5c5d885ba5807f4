#include "train/gru_backward.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "model/gate_math.h"
#include "train/linear_backward.h"

namespace attend {

using namespace gate_math;

void gru_cell_backward(float* dgates, float* dh_prev, float* dw_hh, float* db_hh, const float* dh, const float* gates,
                       const float* hh_n, const float* h_prev, const float* w_hh, int B, int H) {
    std::vector<float> dhw(size_t(B) * 3 * H);  // gradient of h_prev W_hh^T + b_hh
    for (int b = 0; b < B; ++b) {
        const float* g = gates + size_t(b) * 3 * H;
        const float* hn = hh_n + size_t(b) * H;
        const float* hp = h_prev ? h_prev + size_t(b) * H : nullptr;
        const float* d = dh + size_t(b) * H;
        float* dg = dgates + size_t(b) * 3 * H;
        float* da = dhw.data() + size_t(b) * 3 * H;
        float* dp = dh_prev ? dh_prev + size_t(b) * H : nullptr;
        for_each_vector(H, [&](int j, int n) {
            const simd::VecF one(1.0f);
            const simd::VecF r = load_n(g + j, n), z = load_n(g + H + j, n), cand = load_n(g + 2 * H + j, n);
            const simd::VecF prev = hp ? load_n(hp + j, n) : simd::VecF(0.0f);
            const simd::VecF dhj = load_n(d + j, n);
            const simd::VecF dn_pre = dhj * (one - z) * (one - cand * cand);
            const simd::VecF dr_pre = dn_pre * load_n(hn + j, n) * r * (one - r);
            const simd::VecF dz_pre = dhj * (prev - cand) * z * (one - z);
            store_n(dg + j, load_n(dg + j, n) + dr_pre, n);
            store_n(dg + H + j, load_n(dg + H + j, n) + dz_pre, n);
            store_n(dg + 2 * H + j, load_n(dg + 2 * H + j, n) + dn_pre, n);
            store_n(da + j, dr_pre, n);
            store_n(da + H + j, dz_pre, n);
            store_n(da + 2 * H + j, dn_pre * r, n);
            if (dp) store_n(dp + j, load_n(dp + j, n) + dhj * z, n);
        });
    }
    linear_backward(dh_prev, dw_hh, db_hh, dhw.data(), h_prev, w_hh, B, H, 3 * H);
}

void gru_backward(float* dx, float* dh0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh, const float* dout,
                  const float* dh_n, const float* x, const float* h0, const float* out, const float* gates,
                  const float* hh_n, const float* w_ih, const float* w_hh, int T, int B, int I, int H, bool reverse) {
    const size_t BH = size_t(B) * H;
    std::vector<float> dxw(size_t(T) * B * 3 * H, 0.0f);
    std::vector<float> dh(BH, 0.0f), dh_next(BH);
    if (dh_n)
        for (size_t i = 0; i < BH; ++i) dh[i] = dh_n[i];
    for (int s = T - 1; s >= 0; --s) {
        const int t = reverse ? T - 1 - s : s;
        if (dout)
            for (size_t i = 0; i < BH; ++i) dh[i] += dout[size_t(t) * BH + i];
        const int t_prev = reverse ? t + 1 : t - 1;
        const float* h_prev = s == 0 ? h0 : out + size_t(t_prev) * BH;
        float* dprev = s == 0 ? dh0 : dh_next.data();
        if (s > 0) std::fill(dh_next.begin(), dh_next.end(), 0.0f);
        gru_cell_backward(dxw.data() + size_t(t) * B * 3 * H, dprev, dw_hh, db_hh, dh.data(), gates + size_t(t) * B * 3 * H,
                          hh_n + size_t(t) * BH, h_prev, w_hh, B, H);
        if (s > 0) dh.swap(dh_next);
    }
    linear_backward(dx, dw_ih, db_ih, dxw.data(), x, w_ih, T * B, I, 3 * H);
}

}  // namespace attend
