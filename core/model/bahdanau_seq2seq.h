// The seeds' RNN translator as one model: Seq2SeqEncoder (embedding -> multi-layer GRU) and
// Seq2SeqAttentionDecoder (GRU with Bahdanau additive attention), with its own source and target vocabularies,
// one ParameterStore for both, and the hyperparameters as stored in a model file (architecture "bahdanau").
//
// Tensor names (PyTorch's, so a d2l state_dict maps 1:1; V_s / V_t the vocabularies, E embed, H hiddens):
// With bidirectional, every encoder.rnn tensor also has its "_reverse" twin, encoder.rnn.weight_ih_l{k>0} is
// [3H, 2H], decoder.attention.W_k.weight [H, 2H], decoder.rnn.weight_ih_l0 [3H, 2H + E], and
// decoder.init_state.{k}.weight [H, 2H], decoder.init_state.{k}.bias [H] follow decoder.dense.bias.
//   encoder.embedding.weight [V_s, E]
//   encoder.rnn.weight_ih_l0 [3H, E], encoder.rnn.weight_ih_l{k>0} [3H, H], encoder.rnn.weight_hh_l{k} [3H, H],
//   encoder.rnn.bias_ih_l{k} [3H], encoder.rnn.bias_hh_l{k} [3H]
//   decoder.attention.W_k.weight [H, H], decoder.attention.W_q.weight [H, H], decoder.attention.w_v.weight [1, H]
//   decoder.embedding.weight [V_t, E]
//   decoder.rnn.weight_ih_l0 [3H, H + E] (context first, then the embedding), decoder.rnn.weight_ih_l{k>0} [3H, H],
//   decoder.rnn.weight_hh_l{k} [3H, H], decoder.rnn.bias_ih_l{k} [3H], decoder.rnn.bias_hh_l{k} [3H]
//   decoder.dense.weight [V_t, H], decoder.dense.bias [V_t]
// Gate rows of every GRU matrix are PyTorch's r, z, n.
#pragma once
#include <nlohmann/json.hpp>

#include "model/parameter_store.h"
#include "model/seq2seq_attention_decoder.h"
#include "model/seq2seq_encoder.h"

namespace attend {

struct BahdanauConfig {
    int src_vocab = 0, tgt_vocab = 0;
    int embed_size = 32;
    int num_hiddens = 32;
    int num_layers = 2;
    float dropout = 0.1f;  // between GRU layers and on the attention weights, training only
    // > 0 (the seeds' num_steps): every source is padded with pad_id to exactly num_steps tokens (the encoder GRU
    // runs over the padding; attention masks it), a source may hold at most num_steps tokens with its <eos>, and at
    // most num_steps tokens are generated. 0: sources are not padded, max_len bounds both.
    int num_steps = 0;
    int max_len = 256;
    int pad_id = 1;
    // A bidirectional encoder GRU (not in the seeds; Bahdanau et al. 2015's): keys and values 2H wide, the
    // decoder started from both directions' final states (Seq2SeqAttentionDecoder::init_state).
    bool bidirectional = false;

    int max_source_tokens() const { return num_steps > 0 ? num_steps : max_len; }
    // Throws attend::Error naming the first bad field.
    void validate() const;
};

// {"architecture": "bahdanau", "src_vocab", "tgt_vocab", "embed_size", "num_hiddens", "num_layers", "dropout",
//  "num_steps", "max_len", "pad_id", "bidirectional"}; "bidirectional" is written only when true, so a
// unidirectional model's file reads as before in every build; from_json: missing fields keep their defaults (a file
// without "bidirectional" is unidirectional), a wrong type, an unknown field or another architecture throws
// attend::Error naming it.
nlohmann::json bahdanau_config_to_json(const BahdanauConfig& config);
BahdanauConfig bahdanau_config_from_json(const nlohmann::json& json);

// The parameters a config implies, declared but not allocated (names, shapes, file order): what a model file must
// hold, known before anything of its size is allocated. Throws attend::Error on an invalid config.
ParameterStore bahdanau_parameter_layout(const BahdanauConfig& config);

struct BahdanauSeq2Seq {
    // Declares and allocates every parameter (zeros; initialise or load afterwards).
    explicit BahdanauSeq2Seq(const BahdanauConfig& config, bool with_grads = true);
    BahdanauSeq2Seq(const BahdanauSeq2Seq&) = delete;  // encoder and decoder point into params
    BahdanauSeq2Seq& operator=(const BahdanauSeq2Seq&) = delete;

    BahdanauConfig config;
    ParameterStore params;
    Seq2SeqEncoder encoder;
    Seq2SeqAttentionDecoder decoder;
};

}  // namespace attend
