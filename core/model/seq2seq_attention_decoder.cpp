#include "model/seq2seq_attention_decoder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "error.h"
#include "kernels/additive_attention.h"
#include "kernels/attn_mask.h"
#include "kernels/embedding.h"
#include "kernels/masked_softmax.h"
#include "model/additive_attention_layer.h"
#include "model/gru.h"
#include "model/linear.h"
#include "model/parameter_store.h"

namespace attend {

Seq2SeqAttentionDecoder::Seq2SeqAttentionDecoder(const Seq2SeqConfig& config, ParameterStore* store,
                                                 const std::string& prefix)
    : config_(config), store_(store) {
    if (config.vocab_size <= 0 || config.embed_size <= 0 || config.num_hiddens <= 0 || config.num_layers <= 0)
        throw Error("seq2seq attention decoder: vocab_size, embed_size, num_hiddens and num_layers must be positive");
    const int V = config.vocab_size, E = config.embed_size, H = config.num_hiddens, K = key_size();
    offsets.W_k = store->declare(prefix + "attention.W_k.weight", {H, K});
    offsets.W_q = store->declare(prefix + "attention.W_q.weight", {H, H});
    offsets.w_v = store->declare(prefix + "attention.w_v.weight", {1, H});
    offsets.embedding = store->declare(prefix + "embedding.weight", {V, E});
    for (int l = 0; l < config.num_layers; ++l) {
        const std::string k = std::to_string(l);
        offsets.w_ih.push_back(store->declare(prefix + "rnn.weight_ih_l" + k, {3 * H, l == 0 ? K + E : H}));
        offsets.w_hh.push_back(store->declare(prefix + "rnn.weight_hh_l" + k, {3 * H, H}));
        offsets.b_ih.push_back(store->declare(prefix + "rnn.bias_ih_l" + k, {3 * H}));
        offsets.b_hh.push_back(store->declare(prefix + "rnn.bias_hh_l" + k, {3 * H}));
    }
    offsets.dense_w = store->declare(prefix + "dense.weight", {V, H});
    offsets.dense_b = store->declare(prefix + "dense.bias", {V});
    if (config.bidirectional)
        for (int l = 0; l < config.num_layers; ++l) {
            const std::string k = std::to_string(l);
            offsets.init_w.push_back(store->declare(prefix + "init_state." + k + ".weight", {H, 2 * H}));
            offsets.init_b.push_back(store->declare(prefix + "init_state." + k + ".bias", {H}));
        }
}

void Seq2SeqAttentionDecoder::init_state(float* hidden, const float* enc_state, int B) {
    if (!store_->allocated()) throw Error("seq2seq attention decoder: init_state before the parameter store was allocated");
    if (B <= 0) throw Error("seq2seq attention decoder: init_state needs a positive batch size");
    const int H = config_.num_hiddens, L = config_.num_layers;
    const size_t BH = size_t(B) * H;
    if (!config_.bidirectional) {
        std::copy_n(enc_state, size_t(L) * BH, hidden);
        return;
    }
    InitSaved& s = init_saved;
    s.B = B;
    s.in.resize(size_t(L) * 2 * BH);
    s.out.resize(size_t(L) * BH);
    for (int l = 0; l < L; ++l) {
        const float* fwd = enc_state + size_t(2 * l) * BH;  // PyTorch's order: layer l forward, then reverse
        const float* bwd = enc_state + size_t(2 * l + 1) * BH;
        float* in = s.in.data() + size_t(l) * 2 * BH;
        for (int b = 0; b < B; ++b) {
            std::copy_n(fwd + size_t(b) * H, H, in + size_t(b) * 2 * H);
            std::copy_n(bwd + size_t(b) * H, H, in + size_t(b) * 2 * H + H);
        }
        float* out = s.out.data() + size_t(l) * BH;
        linear_forward(out, in, store_->value_at(offsets.init_w[size_t(l)]), store_->value_at(offsets.init_b[size_t(l)]),
                       B, 2 * H, H);
        for (size_t i = 0; i < BH; ++i) out[i] = std::tanh(out[i]);
    }
    std::copy(s.out.begin(), s.out.end(), hidden);
}

void Seq2SeqAttentionDecoder::plan(int B, int T, int Tk) {
    const int E = config_.embed_size, H = config_.num_hiddens, L = config_.num_layers, K = key_size();
    const size_t BH = size_t(B) * H, X_in = size_t(K) + E;
    Saved& s = saved;
    auto carve = [&] {
        s.enc = s.arena.take(size_t(B) * Tk * K);
        s.k_proj = s.arena.take(size_t(B) * Tk * H);
        s.q_proj = s.arena.take(size_t(T) * BH);
        s.probs = s.arena.take(size_t(T) * B * Tk);
        s.x = s.arena.take(size_t(T) * B * X_in);
        s.layer_in = s.arena.take(size_t(T) * L * BH);
        s.gates = s.arena.take(size_t(T) * L * 3 * BH);
        s.hh_n = s.arena.take(size_t(T) * L * BH);
        s.h = s.arena.take(size_t(T) * L * BH);
        s.outputs = s.arena.take(size_t(B) * T * H);
        s.embedded = s.arena.take(size_t(B) * E);
        s.context = s.arena.take(size_t(B) * K);
        s.zeros = s.arena.take(BH);
    };
    s.arena.plan(carve);
    s.B = B;
    s.T = T;
    s.Tk = Tk;
}

void Seq2SeqAttentionDecoder::forward(float* output, float* hidden_out, const int* X, const float* enc_outputs,
                                      const float* hidden, const int* enc_valid_lens, int B, int T, int Tk,
                                      bool training, DropoutStream* dropout) {
    if (!store_->allocated()) throw Error("seq2seq attention decoder: forward before the parameter store was allocated");
    const int V = config_.vocab_size, E = config_.embed_size, H = config_.num_hiddens, L = config_.num_layers,
              K = key_size();
    const size_t BH = size_t(B) * H, X_in = size_t(K) + E;
    const ParameterStore& ps = *store_;
    Saved& s = saved;
    if (s.B != B || s.T != T || s.Tk != Tk || !s.enc) plan(B, T, Tk);
    s.hidden0 = hidden;
    s.enc_valid_lens = enc_valid_lens;
    s.ids.resize(size_t(T) * B);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) s.ids[size_t(t) * B + b] = X[size_t(b) * T + t];
    for (int t = 0; t < Tk; ++t)
        for (int b = 0; b < B; ++b)
            std::copy_n(enc_outputs + (size_t(t) * B + b) * K, K, s.enc + (size_t(b) * Tk + t) * K);
    linear_forward(s.k_proj, s.enc, ps.value_at(offsets.W_k), nullptr, B * Tk, K, H);
    s.attn_drop.assign(size_t(T), Dropout{});
    s.layer_drop.assign(size_t(T) * L, Dropout{});

    AttnMask mask;
    mask.valid_lens = enc_valid_lens;
    const bool drop = training && dropout && config_.dropout > 0.0f;
    auto next_dropout = [&](uint64_t n) {
        if (!drop) return Dropout{};
        Dropout d = dropout->next(n);
        d.p = config_.dropout;
        return d;
    };
    for (int t = 0; t < T; ++t) {
        // The state before this step: the given hidden state, then the previous step's.
        auto h_prev = [&](int l) -> const float* {
            if (t == 0) return hidden ? hidden + size_t(l) * BH : nullptr;
            return s.h + (size_t(t - 1) * L + l) * BH;
        };
        const float* query = h_prev(L - 1);
        if (!query) {
            std::fill_n(s.zeros, BH, 0.0f);
            query = s.zeros;
        }
        float* q_proj = s.q_proj + size_t(t) * BH;
        float* probs = s.probs + size_t(t) * B * Tk;
        linear_forward(q_proj, query, ps.value_at(offsets.W_q), nullptr, B, H, H);
        additive_attention_scores(probs, q_proj, s.k_proj, ps.value_at(offsets.w_v), B, 1, Tk, H);
        masked_softmax_forward(probs, probs, mask, B, 1, 1, Tk);
        s.attn_drop[size_t(t)] = next_dropout(uint64_t(B) * Tk);
        attention_weighted_sum(s.context, probs, s.enc, s.attn_drop[size_t(t)], B, 1, Tk, K);
        embedding_forward(s.embedded, s.ids.data() + size_t(t) * B, ps.value_at(offsets.embedding), 1.0f, B, E, V);
        float* x = s.x + size_t(t) * B * X_in;
        for (int b = 0; b < B; ++b) {
            std::copy_n(s.context + size_t(b) * K, K, x + b * X_in);
            std::copy_n(s.embedded + size_t(b) * E, E, x + b * X_in + K);
        }
        for (int l = 0; l < L; ++l) {
            const size_t k = size_t(t) * L + l;
            const float* input = x;
            int I = int(X_in);
            if (l > 0) {
                s.layer_drop[k] = next_dropout(BH);
                dropout_forward(s.layer_in + k * BH, s.h + (k - 1) * BH, s.layer_drop[k], int64_t(BH));
                input = s.layer_in + k * BH;
                I = H;
            }
            float* gates = s.gates + k * 3 * BH;
            linear_forward(gates, input, ps.value_at(offsets.w_ih[size_t(l)]), ps.value_at(offsets.b_ih[size_t(l)]), B,
                           I, 3 * H);
            gru_cell_forward(s.h + k * BH, gates, s.hh_n + k * BH, h_prev(l), ps.value_at(offsets.w_hh[size_t(l)]),
                             ps.value_at(offsets.b_hh[size_t(l)]), B, H);
        }
        const float* top = s.h + (size_t(t) * L + L - 1) * BH;
        for (int b = 0; b < B; ++b) std::copy_n(top + size_t(b) * H, H, s.outputs + (size_t(b) * T + t) * H);
    }
    linear_forward(output, s.outputs, ps.value_at(offsets.dense_w), ps.value_at(offsets.dense_b), B * T, H, V);
    if (hidden_out) std::copy_n(s.h + size_t(T - 1) * L * BH, size_t(L) * BH, hidden_out);
}

}  // namespace attend
