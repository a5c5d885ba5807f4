// The seeds' Seq2SeqAttentionDecoder (d2l, Bahdanau attention), step by step exactly as the seed:
//   for each target step t:  query = last-layer hidden state (before the step)
//                            context = AdditiveAttention(query, enc_outputs, enc_outputs, enc_valid_lens)
//                            x = concat(context, embedding(X[:, t]))      (context first, as the seed's torch.cat)
//                            out, hidden = GRU(x, hidden)                 (num_layers, dropout between layers)
//   outputs = dense(all outs), [B, T, V].
// Parameters under `prefix` (e.g. "decoder."): attention.W_k.weight [H, H], attention.W_q.weight [H, H],
// attention.w_v.weight [1, H], embedding.weight [V, E], rnn.weight_ih_l0 [3H, E + H], ..., dense.weight [V, H],
// dense.bias [V].
#pragma once
#include <string>
#include <vector>

#include "model/dropout.h"
#include "model/seq2seq_encoder.h"

namespace attend {

class Seq2SeqAttentionDecoder {
public:
    Seq2SeqAttentionDecoder(const Seq2SeqConfig& config, ParameterStore* store, const std::string& prefix = "decoder.");

    // X [B, T] target-side input ids; enc_outputs [Tk, B, H] (time-major, as the encoder returns them; init_state's
    // permute happens here); hidden [L, B, H] the state to start from (the encoder's final state, or the state
    // returned by the previous call when decoding token by token); enc_valid_lens [B] or null.
    // output [B, T, V] logits; hidden_out [L, B, H] the final state (may be null); attention weights of each step
    // are kept in saved.probs ([T, B, Tk]). Inputs must stay alive until the backward, so hidden_out must not alias
    // hidden when a backward follows (in inference it may).
    void forward(float* output, float* hidden_out, const int* X, const float* enc_outputs, const float* hidden,
                 const int* enc_valid_lens, int B, int T, int Tk, bool training = false,
                 DropoutStream* dropout = nullptr);

    const Seq2SeqConfig& config() const { return config_; }
    ParameterStore* store() const { return store_; }

    struct Offsets {
        size_t W_k = 0, W_q = 0, w_v = 0, embedding = 0, dense_w = 0, dense_b = 0;
        std::vector<size_t> w_ih, w_hh, b_ih, b_hh;  // [L]
    } offsets;

    struct Saved {
        int B = 0, T = 0, Tk = 0;
        const float* hidden0 = nullptr;
        const int* enc_valid_lens = nullptr;
        std::vector<int> ids;            // [T, B]
        std::vector<float> enc;          // [B, Tk, H] batch-major encoder outputs (keys = values)
        std::vector<float> k_proj;       // [B, Tk, H]
        std::vector<float> q_proj;       // [T, B, H]
        std::vector<float> probs;        // [T, B, Tk] attention weights (before dropout)
        std::vector<Dropout> attn_drop;  // [T]
        std::vector<float> x;            // [T, B, H + E] GRU input of layer 0: context | embedding
        std::vector<float> layer_in;     // [T, L, B, H] input of layer l > 0 (after dropout)
        std::vector<Dropout> layer_drop; // [T * L]
        std::vector<float> gates;        // [T, L, B, 3H]
        std::vector<float> hh_n;         // [T, L, B, H]
        std::vector<float> h;            // [T, L, B, H] hidden state after each step
        std::vector<float> outputs;      // [B, T, H] last-layer outputs (dense input)
    } saved;

private:
    Seq2SeqConfig config_;
    ParameterStore* store_;
};

}  // namespace attend
