#include "model/lstm.h"

#include <cstddef>
#include <vector>

#include "model/gate_math.h"
#include "model/linear.h"

namespace attend {

using namespace gate_math;

void lstm_cell_forward(float* h, float* c, float* gates, const float* h_prev, const float* c_prev,
                       const float* w_hh, const float* b_hh, int B, int H) {
    std::vector<float> hw(size_t(B) * 4 * H);
    linear_forward(hw.data(), h_prev, w_hh, b_hh, B, H, 4 * H);
    for (int b = 0; b < B; ++b) {
        float* g = gates + size_t(b) * 4 * H;
        const float* a = hw.data() + size_t(b) * 4 * H;
        const float* cp = c_prev ? c_prev + size_t(b) * H : nullptr;
        float* hb = h + size_t(b) * H;
        float* cb = c + size_t(b) * H;
        for_each_vector(H, [&](int j, int n) {
            const simd::VecF ig = sigmoid(load_n(g + j, n) + load_n(a + j, n));
            const simd::VecF fg = sigmoid(load_n(g + H + j, n) + load_n(a + H + j, n));
            const simd::VecF gg = simd::tanh(load_n(g + 2 * H + j, n) + load_n(a + 2 * H + j, n));
            const simd::VecF og = sigmoid(load_n(g + 3 * H + j, n) + load_n(a + 3 * H + j, n));
            const simd::VecF prev = cp ? load_n(cp + j, n) : simd::VecF(0.0f);
            const simd::VecF cell = simd::fma(fg, prev, ig * gg);
            store_n(cb + j, cell, n);
            store_n(hb + j, og * simd::tanh(cell), n);
            store_n(g + j, ig, n);
            store_n(g + H + j, fg, n);
            store_n(g + 2 * H + j, gg, n);
            store_n(g + 3 * H + j, og, n);
        });
    }
}

void lstm_forward(float* out, float* cells, float* gates, const float* x, const float* h0, const float* c0,
                  const float* w_ih, const float* b_ih, const float* w_hh, const float* b_hh, int T, int B, int I,
                  int H, bool reverse) {
    linear_forward(gates, x, w_ih, b_ih, T * B, I, 4 * H);
    const float* h_prev = h0;
    const float* c_prev = c0;
    for (int s = 0; s < T; ++s) {
        const int t = reverse ? T - 1 - s : s;
        float* h = out + size_t(t) * B * H;
        float* c = cells + size_t(t) * B * H;
        lstm_cell_forward(h, c, gates + size_t(t) * B * 4 * H, h_prev, c_prev, w_hh, b_hh, B, H);
        h_prev = h;
        c_prev = c;
    }
}

}  // namespace attend
