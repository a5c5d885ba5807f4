#include "train/rnn_tanh_backward.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "model/gate_math.h"
#include "train/gemm.h"
#include "train/linear_backward.h"

namespace attend {

using namespace gate_math;

void rnn_tanh_backward(float* dx, float* dh0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh,
                       const float* dout, const float* dh_n, const float* x, const float* h0, const float* out,
                       const float* w_ih, const float* w_hh, int T, int B, int I, int H, bool reverse) {
    const size_t BH = size_t(B) * H;
    // dpre [T, B, H]: gradient of each step's pre-activation, shared by both products and both biases.
    std::vector<float> dpre(size_t(T) * BH, 0.0f);
    std::vector<float> dh(BH, 0.0f);
    if (dh_n) std::copy(dh_n, dh_n + BH, dh.begin());
    for (int s = T - 1; s >= 0; --s) {
        const int t = reverse ? T - 1 - s : s;
        const float* h = out + size_t(t) * BH;
        const float* d_out = dout ? dout + size_t(t) * BH : nullptr;
        float* dp = dpre.data() + size_t(t) * BH;
        for (size_t b = 0; b < size_t(B); ++b)
            for_each_vector(H, [&](int j, int n) {
                const size_t i = b * H + j;
                const simd::VecF hv = load_n(h + i, n);
                simd::VecF g = load_n(dh.data() + i, n);
                if (d_out) g = g + load_n(d_out + i, n);
                store_n(dp + i, g * (simd::VecF(1.0f) - hv * hv), n);
            });
        // Only dh_prev [B, H] += dpre [B, H] W_hh [H, H] here: the recurrent weight's gradient is taken for all
        // steps at once below.
        float* dprev = s > 0 ? dh.data() : dh0;
        if (s > 0) std::fill(dh.begin(), dh.end(), 0.0f);
        if (dprev) gemm_accumulate(dprev, H, dp, H, false, w_hh, H, false, B, H, H);
    }
    // dW_hh = sum_t dpre_t^T h_{t-1}: one product over the steps whose previous state is a stored output; the first
    // step's (h0) apart, as h0 may be null (zeros).
    const int t_first = reverse ? T - 1 : 0;
    if (T > 1) {
        const size_t dp_off = reverse ? 0 : BH;       // steps whose previous state is out[t -/+ 1]
        const size_t h_off = reverse ? BH : 0;
        linear_backward(nullptr, dw_hh, db_hh, dpre.data() + dp_off, out + h_off, w_hh, (T - 1) * B, H, H);
    }
    linear_backward(nullptr, dw_hh, db_hh, dpre.data() + size_t(t_first) * BH, h0, w_hh, B, H, H);
    linear_backward(dx, dw_ih, db_ih, dpre.data(), x, w_ih, T * B, I, H);
}

}  // namespace attend
