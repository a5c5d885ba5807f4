#include "model/rnn.h"

#include <algorithm>

#include "error.h"
#include "model/gru.h"
#include "model/lstm.h"
#include "model/parameter_store.h"
#include "model/rnn_tanh.h"

namespace attend {

const char* rnn_kind_name(RnnKind kind) {
    return kind == RnnKind::GRU ? "gru" : kind == RnnKind::LSTM ? "lstm" : "rnn";
}

RnnKind rnn_kind_from_name(const std::string& name) {
    if (name == "gru") return RnnKind::GRU;
    if (name == "lstm") return RnnKind::LSTM;
    if (name == "rnn") return RnnKind::RNN;
    throw Error("rnn kind '" + name + "' is not one of rnn, gru, lstm");
}

Rnn::Rnn(const RnnConfig& config, ParameterStore* store, const std::string& prefix) : config_(config), store_(store) {
    if (config.input_size <= 0 || config.hidden_size <= 0 || config.num_layers <= 0)
        throw Error("rnn '" + prefix + "': input_size, hidden_size and num_layers must be positive");
    if (config.dropout < 0.0f || config.dropout > 1.0f)
        throw Error("rnn '" + prefix + "': dropout must be in [0, 1]");
    const int H = config.hidden_size, G = gate_count();
    for (int l = 0; l < config.num_layers; ++l) {
        for (int d = 0; d < directions(); ++d) {
            const std::string suffix = "_l" + std::to_string(l) + (d ? "_reverse" : "");
            Weights w;
            w.w_ih = store->declare(prefix + "weight_ih" + suffix, {G * H, layer_input_size(l)});
            w.w_hh = store->declare(prefix + "weight_hh" + suffix, {G * H, H});
            w.b_ih = store->declare(prefix + "bias_ih" + suffix, {G * H});
            w.b_hh = store->declare(prefix + "bias_hh" + suffix, {G * H});
            weights_.push_back(w);
        }
    }
}

void Rnn::plan(Arena& arena, int T, int B) {
    const int L = config_.num_layers, D = directions(), H = config_.hidden_size, G = gate_count();
    const size_t TBH = size_t(T) * B * H;
    Saved& s = saved;
    if (&arena != &s.arena) s.arena = Arena();  // the owner's arena holds them now
    s.dir_out.assign(size_t(L * D), nullptr);
    s.gates.assign(size_t(L * D), nullptr);
    s.extra.assign(size_t(L * D), nullptr);
    for (int k = 0; k < L * D; ++k) {
        s.dir_out[size_t(k)] = arena.take(TBH);
        s.gates[size_t(k)] = arena.take(TBH * G);
        if (config_.kind != RnnKind::RNN) s.extra[size_t(k)] = arena.take(TBH);
    }
    s.layer_in.assign(size_t(L), nullptr);
    for (int l = 1; l < L; ++l) s.layer_in[size_t(l)] = arena.take(TBH * D);
    s.layer_out = L > 1 ? arena.take(TBH * D) : nullptr;
    s.T = T;
    s.B = B;
}

void Rnn::forward(float* out, float* h_n, float* c_n, const float* x, const float* h0, const float* c0, int T, int B,
                  bool training, DropoutStream* dropout) {
    if (!store_ || !store_->allocated()) throw Error("rnn: forward before the parameter store was allocated");
    if (T <= 0 || B <= 0) throw Error("rnn: sequence length and batch size must be positive");
    const int L = config_.num_layers, D = directions(), H = config_.hidden_size;
    const bool lstm = config_.kind == RnnKind::LSTM;
    const size_t BH = size_t(B) * H;
    Saved& s = saved;
    if (s.T != T || s.B != B || s.dir_out.empty() || !s.dir_out[0]) s.arena.plan([&] { plan(s.arena, T, B); });
    s.x = x;
    s.h0 = h0;
    s.c0 = lstm ? c0 : nullptr;
    s.dropouts.assign(size_t(L), Dropout{});

    const float* input = x;
    for (int l = 0; l < L; ++l) {
        const int I = layer_input_size(l);
        for (int d = 0; d < D; ++d) {
            const int k = l * D + d;
            const Weights& w = weights_[size_t(k)];
            float* dir_out = s.dir_out[size_t(k)];
            float* extra = s.extra[size_t(k)];
            const float* h_init = h0 ? h0 + size_t(k) * BH : nullptr;
            if (lstm) {
                const float* c_init = c0 ? c0 + size_t(k) * BH : nullptr;
                lstm_forward(dir_out, extra, s.gates[size_t(k)], input, h_init, c_init, store_->value_at(w.w_ih),
                             store_->value_at(w.b_ih), store_->value_at(w.w_hh), store_->value_at(w.b_hh), T, B, I, H,
                             d == 1);
            } else if (config_.kind == RnnKind::RNN) {
                rnn_tanh_forward(dir_out, s.gates[size_t(k)], input, h_init, store_->value_at(w.w_ih),
                                 store_->value_at(w.b_ih), store_->value_at(w.w_hh), store_->value_at(w.b_hh), T, B, I,
                                 H, d == 1);
            } else {
                gru_forward(dir_out, s.gates[size_t(k)], extra, input, h_init, store_->value_at(w.w_ih),
                            store_->value_at(w.b_ih), store_->value_at(w.w_hh), store_->value_at(w.b_hh), T, B, I, H,
                            d == 1);
            }
            const size_t last = d == 0 ? size_t(T - 1) : 0;  // the reverse direction ends at t = 0
            if (h_n) std::copy_n(dir_out + last * BH, BH, h_n + size_t(k) * BH);
            if (lstm && c_n) std::copy_n(extra + last * BH, BH, c_n + size_t(k) * BH);
        }
        // Concatenate the directions: [T, B, D*H] with the forward direction first.
        float* dst = l == L - 1 ? out : s.layer_out;
        for (size_t tb = 0; tb < size_t(T) * B; ++tb)
            for (int d = 0; d < D; ++d) std::copy_n(s.dir_out[size_t(l * D + d)] + tb * H, H, dst + (tb * D + d) * H);
        if (l + 1 < L) {
            const int64_t n = int64_t(T) * B * D * H;
            Dropout drop;
            if (training && dropout && config_.dropout > 0.0f) {
                drop = dropout->next_time_major(uint64_t(n), uint64_t(T), config_.dropout);
            }
            s.dropouts[size_t(l + 1)] = drop;
            dropout_forward(s.layer_in[size_t(l + 1)], s.layer_out, drop, n);
            input = s.layer_in[size_t(l + 1)];
        }
    }
}

}  // namespace attend
