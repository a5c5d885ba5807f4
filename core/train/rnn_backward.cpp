#include "train/rnn_backward.h"

#include <algorithm>
#include <vector>

#include "error.h"
#include "model/parameter_store.h"
#include "model/rnn.h"
#include "train/dropout.h"
#include "train/gru_backward.h"
#include "train/lstm_backward.h"
#include "train/rnn_tanh_backward.h"

namespace attend {

void rnn_backward(Rnn& rnn, float* dx, float* dh0, float* dc0, const float* dout, const float* dh_n,
                  const float* dc_n) {
    ParameterStore& store = *rnn.store();
    if (!store.has_grads()) throw Error("rnn_backward: the parameter store has no gradient buffer");
    const Rnn::Saved& s = rnn.saved;
    if (!s.x || s.dir_out.empty() || !s.dir_out[0]) throw Error("rnn_backward: called before forward");
    const RnnConfig& cfg = rnn.config();
    const int T = s.T, B = s.B, L = cfg.num_layers, D = rnn.directions(), H = cfg.hidden_size;
    const bool lstm = cfg.kind == RnnKind::LSTM;
    const size_t TB = size_t(T) * B, BH = size_t(B) * H;

    // d_layer_out: gradient of the current layer's concatenated output [T, B, D*H].
    std::vector<float> d_layer_out(TB * D * H, 0.0f);
    if (dout) std::copy_n(dout, d_layer_out.size(), d_layer_out.begin());
    std::vector<float> d_dir(TB * H), d_in;
    for (int l = L - 1; l >= 0; --l) {
        const int I = rnn.layer_input_size(l);
        const float* input = l == 0 ? s.x : s.layer_in[size_t(l)];
        float* d_input = nullptr;
        if (l > 0) {
            d_in.assign(TB * I, 0.0f);
            d_input = d_in.data();
        } else {
            d_input = dx;
        }
        for (int d = 0; d < D; ++d) {
            const int k = l * D + d;
            const Rnn::Weights& w = rnn.weights(l, d);
            for (size_t tb = 0; tb < TB; ++tb)
                std::copy_n(d_layer_out.data() + (tb * D + d) * H, H, d_dir.data() + tb * H);
            const float* h_init = s.h0 ? s.h0 + size_t(k) * BH : nullptr;
            float* dh_init = dh0 ? dh0 + size_t(k) * BH : nullptr;
            const float* dhn = dh_n ? dh_n + size_t(k) * BH : nullptr;
            if (lstm) {
                const float* c_init = s.c0 ? s.c0 + size_t(k) * BH : nullptr;
                float* dc_init = dc0 ? dc0 + size_t(k) * BH : nullptr;
                const float* dcn = dc_n ? dc_n + size_t(k) * BH : nullptr;
                lstm_backward(d_input, dh_init, dc_init, store.grad_at(w.w_ih), store.grad_at(w.b_ih),
                              store.grad_at(w.w_hh), store.grad_at(w.b_hh), d_dir.data(), dhn, dcn, input, h_init,
                              c_init, s.dir_out[size_t(k)], s.extra[size_t(k)], s.gates[size_t(k)],
                              store.value_at(w.w_ih), store.value_at(w.w_hh), T, B, I, H, d == 1);
            } else if (cfg.kind == RnnKind::RNN) {
                rnn_tanh_backward(d_input, dh_init, store.grad_at(w.w_ih), store.grad_at(w.b_ih),
                                  store.grad_at(w.w_hh), store.grad_at(w.b_hh), d_dir.data(), dhn, input, h_init,
                                  s.dir_out[size_t(k)], store.value_at(w.w_ih), store.value_at(w.w_hh), T, B, I, H,
                                  d == 1);
            } else {
                gru_backward(d_input, dh_init, store.grad_at(w.w_ih), store.grad_at(w.b_ih), store.grad_at(w.w_hh),
                             store.grad_at(w.b_hh), d_dir.data(), dhn, input, h_init, s.dir_out[size_t(k)],
                             s.gates[size_t(k)], s.extra[size_t(k)], store.value_at(w.w_ih),
                             store.value_at(w.w_hh), T, B, I, H, d == 1);
            }
        }
        if (l > 0) {  // through the dropout to the previous layer's output
            std::fill(d_layer_out.begin(), d_layer_out.end(), 0.0f);
            dropout_backward(d_layer_out.data(), d_in.data(), s.dropouts[size_t(l)], int64_t(d_in.size()));
        }
    }
}

}  // namespace attend
