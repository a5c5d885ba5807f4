#include "model/rnn_tanh.h"

#include <cstddef>

#include "model/gate_math.h"
#include "model/linear.h"

namespace attend {

using namespace gate_math;

void rnn_tanh_cell_forward(float* h, const float* pre, const float* h_prev, const float* w_hh, const float* b_hh,
                           int B, int H) {
    linear_forward(h, h_prev, w_hh, b_hh, B, H, H);  // h_prev W_hh^T + b_hh, then in place
    for (size_t b = 0; b < size_t(B); ++b) {
        float* hb = h + b * H;
        const float* p = pre + b * H;
        for_each_vector(H, [&](int j, int c) { store_n(hb + j, simd::tanh(load_n(hb + j, c) + load_n(p + j, c)), c); });
    }
}

void rnn_tanh_forward(float* out, float* proj, const float* x, const float* h0, const float* w_ih, const float* b_ih,
                      const float* w_hh, const float* b_hh, int T, int B, int I, int H, bool reverse) {
    // The input projection of every step at once: one large GEMM instead of T small ones.
    linear_forward(proj, x, w_ih, b_ih, T * B, I, H);
    const float* h_prev = h0;
    for (int s = 0; s < T; ++s) {
        const int t = reverse ? T - 1 - s : s;
        float* h = out + size_t(t) * B * H;
        rnn_tanh_cell_forward(h, proj + size_t(t) * B * H, h_prev, w_hh, b_hh, B, H);
        h_prev = h;
    }
}

}  // namespace attend
