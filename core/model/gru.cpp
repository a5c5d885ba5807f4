#include "model/gru.h"

#include <cstddef>
#include <vector>

#include "model/gate_math.h"
#include "model/linear.h"

namespace attend {

using namespace gate_math;

void gru_cell_forward(float* h, float* gates, float* hh_n, const float* h_prev, const float* w_hh,
                      const float* b_hh, int B, int H) {
    std::vector<float> hw(size_t(B) * 3 * H);
    linear_forward(hw.data(), h_prev, w_hh, b_hh, B, H, 3 * H);
    for (int b = 0; b < B; ++b) {
        float* g = gates + size_t(b) * 3 * H;
        const float* a = hw.data() + size_t(b) * 3 * H;
        const float* hp = h_prev ? h_prev + size_t(b) * H : nullptr;
        float* hb = h + size_t(b) * H;
        float* hn = hh_n + size_t(b) * H;
        for_each_vector(H, [&](int i, int n) {
            const simd::VecF r = sigmoid(load_n(g + i, n) + load_n(a + i, n));
            const simd::VecF z = sigmoid(load_n(g + H + i, n) + load_n(a + H + i, n));
            const simd::VecF hh = load_n(a + 2 * H + i, n);
            const simd::VecF cand = simd::tanh(simd::fma(r, hh, load_n(g + 2 * H + i, n)));
            const simd::VecF prev = hp ? load_n(hp + i, n) : simd::VecF(0.0f);
            // (1 - z) n + z h = n + z (h - n)
            store_n(hb + i, simd::fma(z, prev - cand, cand), n);
            store_n(g + i, r, n);
            store_n(g + H + i, z, n);
            store_n(g + 2 * H + i, cand, n);
            store_n(hn + i, hh, n);
        });
    }
}

void gru_forward(float* out, float* gates, float* hh_n, const float* x, const float* h0, const float* w_ih,
                 const float* b_ih, const float* w_hh, const float* b_hh, int T, int B, int I, int H, bool reverse) {
    // The input projection of every step at once: one large GEMM instead of T small ones.
    linear_forward(gates, x, w_ih, b_ih, T * B, I, 3 * H);
    const float* h_prev = h0;
    for (int s = 0; s < T; ++s) {
        const int t = reverse ? T - 1 - s : s;
        float* h = out + size_t(t) * B * H;
        gru_cell_forward(h, gates + size_t(t) * B * 3 * H, hh_n + size_t(t) * B * H, h_prev, w_hh, b_hh, B, H);
        h_prev = h;
    }
}

}  // namespace attend
