#include "train/seq2seq_attention_decoder_backward.h"

#include <algorithm>
#include <vector>

#include "error.h"
#include "model/parameter_store.h"
#include "model/seq2seq_attention_decoder.h"
#include "train/attention_layers_backward.h"
#include "train/dropout.h"
#include "train/embedding_backward.h"
#include "train/gru_backward.h"
#include "train/linear_backward.h"

namespace attend {

void seq2seq_attention_decoder_backward(Seq2SeqAttentionDecoder& decoder, float* denc_outputs, float* dhidden,
                                        const float* doutput, const float* dhidden_out) {
    ParameterStore& ps = *decoder.store();
    const Seq2SeqAttentionDecoder::Offsets& o = decoder.offsets;
    const Seq2SeqAttentionDecoder::Saved& s = decoder.saved;
    const Seq2SeqConfig& c = decoder.config();
    const int B = s.B, T = s.T, Tk = s.Tk, V = c.vocab_size, E = c.embed_size, H = c.num_hiddens, L = c.num_layers,
              K = decoder.key_size();
    const size_t BH = size_t(B) * H, X_in = size_t(K) + E;

    std::vector<float> douts(size_t(B) * T * H, 0.0f);  // [B, T, H]
    linear_backward(douts.data(), ps.grad_at(o.dense_w), ps.grad_at(o.dense_b), doutput, s.outputs,
                    ps.value_at(o.dense_w), B * T, H, V);

    std::vector<float> dh(size_t(L) * BH, 0.0f), dh_prev(size_t(L) * BH);  // gradients of the current states
    if (dhidden_out) std::copy_n(dhidden_out, dh.size(), dh.begin());
    std::vector<float> denc(size_t(B) * Tk * K, 0.0f), dk_proj(size_t(B) * Tk * H, 0.0f);
    std::vector<float> dgates(3 * BH), dinput(size_t(B) * X_in), dcontext(size_t(B) * K), dembedded(size_t(B) * E);
    std::vector<float> dscores(size_t(B) * Tk), dq_proj(BH), zeros(BH, 0.0f);

    for (int t = T - 1; t >= 0; --t) {
        auto h_prev = [&](int l) -> const float* {
            if (t == 0) return s.hidden0 ? s.hidden0 + size_t(l) * BH : zeros.data();
            return s.h + (size_t(t - 1) * L + l) * BH;
        };
        float* dtop = dh.data() + size_t(L - 1) * BH;
        for (int b = 0; b < B; ++b)
            for (int j = 0; j < H; ++j) dtop[size_t(b) * H + j] += douts[(size_t(b) * T + t) * H + j];
        std::fill(dh_prev.begin(), dh_prev.end(), 0.0f);
        for (int l = L - 1; l >= 0; --l) {
            const size_t k = size_t(t) * L + l;
            const int I = l == 0 ? int(X_in) : H;
            const float* input = l == 0 ? s.x + size_t(t) * B * X_in : s.layer_in + k * BH;
            std::fill(dgates.begin(), dgates.end(), 0.0f);
            gru_cell_backward(dgates.data(), dh_prev.data() + size_t(l) * BH, ps.grad_at(o.w_hh[size_t(l)]),
                              ps.grad_at(o.b_hh[size_t(l)]), dh.data() + size_t(l) * BH, s.gates + k * 3 * BH,
                              s.hh_n + k * BH, h_prev(l), ps.value_at(o.w_hh[size_t(l)]), B, H);
            std::fill(dinput.begin(), dinput.begin() + long(size_t(B) * I), 0.0f);
            linear_backward(dinput.data(), ps.grad_at(o.w_ih[size_t(l)]), ps.grad_at(o.b_ih[size_t(l)]), dgates.data(),
                            input, ps.value_at(o.w_ih[size_t(l)]), B, I, 3 * H);
            if (l > 0)  // to the output of layer l - 1 at this step, through the dropout between layers
                dropout_backward(dh.data() + size_t(l - 1) * BH, dinput.data(), s.layer_drop[k], int64_t(BH));
        }
        // Layer 0's input was concat(context, embedding).
        for (int b = 0; b < B; ++b) {
            std::copy_n(dinput.data() + b * X_in, K, dcontext.data() + size_t(b) * K);
            std::copy_n(dinput.data() + b * X_in + K, E, dembedded.data() + size_t(b) * E);
        }
        embedding_backward(ps.grad_at(o.embedding), dembedded.data(), s.ids.data() + size_t(t) * B, 1.0f, -1, B, E, V);
        std::fill(dscores.begin(), dscores.end(), 0.0f);
        attention_weighted_sum_backward(dscores.data(), denc.data(), dcontext.data(), s.probs + size_t(t) * B * Tk,
                                        s.enc, s.attn_drop[size_t(t)], B, 1, Tk, K);
        std::fill(dq_proj.begin(), dq_proj.end(), 0.0f);
        additive_attention_scores_backward(dq_proj.data(), dk_proj.data(), ps.grad_at(o.w_v), dscores.data(),
                                           s.q_proj + size_t(t) * BH, s.k_proj, ps.value_at(o.w_v), B, 1,
                                           Tk, H);
        // The query was the last layer's state before this step.
        linear_backward(dh_prev.data() + size_t(L - 1) * BH, ps.grad_at(o.W_q), nullptr, dq_proj.data(), h_prev(L - 1),
                        ps.value_at(o.W_q), B, H, H);
        dh.swap(dh_prev);
    }
    if (dhidden)
        for (size_t i = 0; i < dh.size(); ++i) dhidden[i] += dh[i];
    linear_backward(denc.data(), ps.grad_at(o.W_k), nullptr, dk_proj.data(), s.enc, ps.value_at(o.W_k), B * Tk,
                    K, H);
    if (denc_outputs)  // back to time-major
        for (int t = 0; t < Tk; ++t)
            for (int b = 0; b < B; ++b)
                for (int j = 0; j < K; ++j)
                    denc_outputs[(size_t(t) * B + b) * K + j] += denc[(size_t(b) * Tk + t) * K + j];
}

void seq2seq_attention_decoder_init_state_backward(Seq2SeqAttentionDecoder& decoder, float* denc_state,
                                                   const float* dhidden, int B) {
    const Seq2SeqConfig& c = decoder.config();
    const int H = c.num_hiddens, L = c.num_layers;
    const size_t BH = size_t(B) * H;
    if (!c.bidirectional) {  // the state itself
        for (size_t i = 0; i < size_t(L) * BH; ++i) denc_state[i] += dhidden[i];
        return;
    }
    const Seq2SeqAttentionDecoder::InitSaved& s = decoder.init_saved;
    if (s.B != B || s.out.size() != size_t(L) * BH)
        throw Error("seq2seq decoder init_state backward: batch " + std::to_string(B) + ", the forward's was " +
                    std::to_string(s.B));
    ParameterStore& ps = *decoder.store();
    std::vector<float> dpre(BH), din(2 * BH);
    for (int l = 0; l < L; ++l) {
        const float* out = s.out.data() + size_t(l) * BH;
        const float* dh = dhidden + size_t(l) * BH;
        for (size_t i = 0; i < BH; ++i) dpre[i] = dh[i] * (1.0f - out[i] * out[i]);  // tanh' = 1 - tanh^2
        std::fill(din.begin(), din.end(), 0.0f);
        linear_backward(din.data(), ps.grad_at(decoder.offsets.init_w[size_t(l)]),
                        ps.grad_at(decoder.offsets.init_b[size_t(l)]), dpre.data(), s.in.data() + size_t(l) * 2 * BH,
                        ps.value_at(decoder.offsets.init_w[size_t(l)]), B, 2 * H, H);
        float* dfwd = denc_state + size_t(2 * l) * BH;
        float* dbwd = denc_state + size_t(2 * l + 1) * BH;
        for (int b = 0; b < B; ++b)
            for (int j = 0; j < H; ++j) {
                dfwd[size_t(b) * H + j] += din[size_t(b) * 2 * H + j];
                dbwd[size_t(b) * H + j] += din[size_t(b) * 2 * H + H + j];
            }
    }
}

}  // namespace attend
