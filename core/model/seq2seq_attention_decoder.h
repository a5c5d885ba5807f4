// The seeds' Seq2SeqAttentionDecoder (d2l, Bahdanau attention), step by step exactly as the seed:
//   for each target step t:  query = last-layer hidden state (before the step)
//                            context = AdditiveAttention(query, enc_outputs, enc_outputs, enc_valid_lens)
//                            x = concat(context, embedding(X[:, t]))      (context first, as the seed's torch.cat)
//                            out, hidden = GRU(x, hidden)                 (num_layers, dropout between layers)
//   outputs = dense(all outs), [B, T, V].
// Parameters under `prefix` (e.g. "decoder."): attention.W_k.weight [H, K], attention.W_q.weight [H, H],
// attention.w_v.weight [1, H], embedding.weight [V, E], rnn.weight_ih_l0 [3H, K + E], ..., dense.weight [V, H],
// dense.bias [V]; K = H, or 2H with a bidirectional encoder (config.bidirectional), whose outputs are the keys and
// values and whose final states start the decoder through init_state.{l}.weight [H, 2H], init_state.{l}.bias [H].
#pragma once
#include <string>
#include <vector>

#include "model/arena.h"
#include "model/dropout.h"
#include "model/seq2seq_encoder.h"

namespace attend {

class Seq2SeqAttentionDecoder {
public:
    Seq2SeqAttentionDecoder(const Seq2SeqConfig& config, ParameterStore* store, const std::string& prefix = "decoder.");

    // The decoder's initial state from the encoder's final state: hidden [L, B, H] from enc_state [L*D, B, H].
    // Unidirectional: the state itself (the seeds' init_state). Bidirectional: per layer l,
    //   hidden[l] = tanh(init_state.l.weight [forward_l ; backward_l] + init_state.l.bias)
    // as Bahdanau et al. (2015) start theirs from tanh(W_s h_1<-): the backward state has read the sentence
    // from its end and ends at the first word, which the decoder produces first; the forward state is kept beside
    // it (concatenated, not summed) because it summarises the same words from the other side and a sum would force
    // both directions into one basis; tanh keeps the result in the GRU's own range (-1, 1). What the backward needs
    // is kept in init_saved (until the next call).
    void init_state(float* hidden, const float* enc_state, int B);

    // X [B, T] target-side input ids; enc_outputs [Tk, B, K] (time-major, as the encoder returns them; the seeds'
    // init_state permute happens here); hidden [L, B, H] the state to start from (init_state's, or the state
    // returned by the previous call when decoding token by token); enc_valid_lens [B] or null.
    // output [B, T, V] logits; hidden_out [L, B, H] the final state (may be null); attention weights of each step
    // are kept in saved.probs ([T, B, Tk], until the next forward). Inputs must stay alive until the backward, so
    // hidden_out must not alias hidden when a backward follows (in inference it may).
    void forward(float* output, float* hidden_out, const int* X, const float* enc_outputs, const float* hidden,
                 const int* enc_valid_lens, int B, int T, int Tk, bool training = false,
                 DropoutStream* dropout = nullptr);

    const Seq2SeqConfig& config() const { return config_; }
    ParameterStore* store() const { return store_; }
    // Width of the encoder outputs (keys, values, context): H, or 2H with a bidirectional encoder.
    int key_size() const { return config_.bidirectional ? 2 * config_.num_hiddens : config_.num_hiddens; }
    // Layers of the encoder's final state: L, or 2L bidirectional.
    int encoder_state_layers() const { return config_.bidirectional ? 2 * config_.num_layers : config_.num_layers; }

    struct Offsets {
        size_t W_k = 0, W_q = 0, w_v = 0, embedding = 0, dense_w = 0, dense_b = 0;
        std::vector<size_t> w_ih, w_hh, b_ih, b_hh;  // [L]
        std::vector<size_t> init_w, init_b;          // [L] bidirectional only
    } offsets;

    // Kept by init_state for its backward (bidirectional; empty otherwise).
    struct InitSaved {
        int B = 0;
        std::vector<float> in;   // [L, B, 2H] forward | backward final state per layer
        std::vector<float> out;  // [L, B, H] the tanh
    } init_saved;

    // The activations the backward needs: named pointers into one arena, planned from (B, T, Tk) and kept while
    // later calls have the same sizes (smaller ones re-carve the same storage). A copy starts unplanned, so a
    // backward needs a forward of the copy first.
    struct SavedActivations {
        int B = 0, T = 0, Tk = 0;        // the planned sizes; 0 = not planned
        const float* hidden0 = nullptr;
        const int* enc_valid_lens = nullptr;
        std::vector<int> ids;            // [T, B]
        std::vector<Dropout> attn_drop;  // [T]
        std::vector<Dropout> layer_drop; // [T * L]
        float* enc = nullptr;            // [B, Tk, K] batch-major encoder outputs (keys = values)
        float* k_proj = nullptr;         // [B, Tk, H]
        float* q_proj = nullptr;         // [T, B, H]
        float* probs = nullptr;          // [T, B, Tk] attention weights (before dropout)
        float* x = nullptr;              // [T, B, K + E] GRU input of layer 0: context | embedding
        float* layer_in = nullptr;       // [T, L, B, H] input of layer l > 0 (after dropout)
        float* gates = nullptr;          // [T, L, B, 3H]
        float* hh_n = nullptr;           // [T, L, B, H]
        float* h = nullptr;              // [T, L, B, H] hidden state after each step
        float* outputs = nullptr;        // [B, T, H] last-layer outputs (dense input)
        float* embedded = nullptr;       // [B, E] one step's embeddings (scratch)
        float* context = nullptr;        // [B, K] one step's attention output (scratch)
        float* zeros = nullptr;          // [B, H] the query of step 0 when no hidden state is given
        Arena arena;
    };
    using Saved = CopiesUnplanned<SavedActivations>;
    Saved saved;

private:
    void plan(int B, int T, int Tk);  // carves saved from saved.arena for (B, T, Tk)

    Seq2SeqConfig config_;
    ParameterStore* store_;
};

}  // namespace attend
