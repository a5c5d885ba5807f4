// The hyperparameters of a Transformer encoder-decoder, as stored in a model file's metadata (JSON).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace attend {

enum class Activation { ReLU, GELU };

struct TransformerConfig {
    int model_dim = 256;  // C
    int heads = 4;        // H (C must be a multiple of H)
    int encoder_layers = 3;
    int decoder_layers = 3;
    int ffn_dim = 1024;
    int src_vocab = 8000;
    int tgt_vocab = 8000;
    int max_len = 1024;    // longest sequence (positional encoding rows, decoding cache)
    float dropout = 0.1f;  // embeddings + positional encoding, attention weights (unless attention_dropout is set),
                           // every sublayer output before its residual add (as the seeds; nn.Transformer also
                           // drops inside the FFN)
    // The attention weights' own rate (fairseq's attention_dropout, 0 there by default); absent: `dropout`, the
    // seeds' and nn.MultiheadAttention's convention, which every model file without the field was trained with.
    std::optional<float> attention_dropout;
    bool tie_embeddings = false;  // one table for source, target and output projection (joint vocabulary)
    bool pre_ln = false;          // false: post-LN as in the seeds and nn.Transformer(norm_first=False)
    bool final_norm = false;      // a LayerNorm after each stack (nn.Transformer has it; the seeds do not)
    bool bias = true;             // biases of the attention projections
    Activation activation = Activation::ReLU;
    float layernorm_eps = 1e-5f;
    int pad_id = -1;  // embedding rows of this id get no gradient; -1 for none

    int head_dim() const { return model_dim / heads; }
    float attention_dropout_rate() const { return attention_dropout.value_or(dropout); }
    // Throws attend::Error naming the first bad field.
    void validate() const;
};

nlohmann::json transformer_config_to_json(const TransformerConfig& config);
// Missing fields keep their defaults; wrong types or values throw attend::Error.
TransformerConfig transformer_config_from_json(const nlohmann::json& json);
// The same, for nlohmann::json's conversions (a TransformerConfig inside another struct's JSON).
inline void to_json(nlohmann::json& j, const TransformerConfig& c) { j = transformer_config_to_json(c); }
inline void from_json(const nlohmann::json& j, TransformerConfig& c) { c = transformer_config_from_json(j); }

}  // namespace attend
