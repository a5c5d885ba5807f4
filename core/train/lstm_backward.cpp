#include "train/lstm_backward.h"

#include <algorithm>
#include <vector>

#include "model/gate_math.h"
#include "train/linear_backward.h"

namespace attend {

using namespace gate_math;

void lstm_cell_backward(float* dgates, float* dh_prev, float* dc_prev, float* dw_hh, float* db_hh, const float* dh,
                        const float* dc, const float* gates, const float* c, const float* c_prev, const float* h_prev,
                        const float* w_hh, int B, int H) {
    std::vector<float> dhw(size_t(B) * 4 * H);
    for (int b = 0; b < B; ++b) {
        const float* g = gates + size_t(b) * 4 * H;
        const float* cb = c + size_t(b) * H;
        const float* cp = c_prev ? c_prev + size_t(b) * H : nullptr;
        const float* d = dh + size_t(b) * H;
        const float* dcb = dc ? dc + size_t(b) * H : nullptr;
        float* dg = dgates + size_t(b) * 4 * H;
        float* da = dhw.data() + size_t(b) * 4 * H;
        float* dcp = dc_prev ? dc_prev + size_t(b) * H : nullptr;
        for_each_vector(H, [&](int j, int n) {
            const simd::VecF one(1.0f);
            const simd::VecF i = load_n(g + j, n), f = load_n(g + H + j, n), gg = load_n(g + 2 * H + j, n),
                             o = load_n(g + 3 * H + j, n);
            const simd::VecF tc = simd::tanh(load_n(cb + j, n));
            const simd::VecF prev = cp ? load_n(cp + j, n) : simd::VecF(0.0f);
            const simd::VecF dhj = load_n(d + j, n);
            const simd::VecF dct = (dcb ? load_n(dcb + j, n) : simd::VecF(0.0f)) + dhj * o * (one - tc * tc);
            const simd::VecF da_gate[4] = {dct * gg * i * (one - i), dct * prev * f * (one - f),
                                           dct * i * (one - gg * gg), dhj * tc * o * (one - o)};
            for (int k = 0; k < 4; ++k) {
                store_n(da + k * H + j, da_gate[k], n);
                store_n(dg + k * H + j, load_n(dg + k * H + j, n) + da_gate[k], n);
            }
            if (dcp) store_n(dcp + j, load_n(dcp + j, n) + dct * f, n);
        });
    }
    linear_backward(dh_prev, dw_hh, db_hh, dhw.data(), h_prev, w_hh, B, H, 4 * H);
}

void lstm_backward(float* dx, float* dh0, float* dc0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh,
                   const float* dout, const float* dh_n, const float* dc_n, const float* x, const float* h0,
                   const float* c0, const float* out, const float* cells, const float* gates, const float* w_ih,
                   const float* w_hh, int T, int B, int I, int H, bool reverse) {
    const size_t BH = size_t(B) * H;
    std::vector<float> dxw(size_t(T) * B * 4 * H, 0.0f);
    std::vector<float> dh(BH, 0.0f), dc(BH, 0.0f), dh_next(BH), dc_next(BH);
    if (dh_n) std::copy(dh_n, dh_n + BH, dh.begin());
    if (dc_n) std::copy(dc_n, dc_n + BH, dc.begin());
    for (int s = T - 1; s >= 0; --s) {
        const int t = reverse ? T - 1 - s : s;
        if (dout)
            for (size_t i = 0; i < BH; ++i) dh[i] += dout[size_t(t) * BH + i];
        const int t_prev = reverse ? t + 1 : t - 1;
        const float* h_prev = s == 0 ? h0 : out + size_t(t_prev) * BH;
        const float* c_prev = s == 0 ? c0 : cells + size_t(t_prev) * BH;
        float* dhp = s == 0 ? dh0 : dh_next.data();
        float* dcp = s == 0 ? dc0 : dc_next.data();
        if (s > 0) {
            std::fill(dh_next.begin(), dh_next.end(), 0.0f);
            std::fill(dc_next.begin(), dc_next.end(), 0.0f);
        }
        lstm_cell_backward(dxw.data() + size_t(t) * B * 4 * H, dhp, dcp, dw_hh, db_hh, dh.data(), dc.data(),
                           gates + size_t(t) * B * 4 * H, cells + size_t(t) * BH, c_prev, h_prev, w_hh, B, H);
        if (s > 0) {
            dh.swap(dh_next);
            dc.swap(dc_next);
        }
    }
    linear_backward(dx, dw_ih, db_ih, dxw.data(), x, w_ih, T * B, I, 4 * H);
}

}  // namespace attend
