// Bounds on the numbers of a model config. A config comes from a model file's metadata, i.e. from anyone, and
// its sizes decide how much memory a model takes: each number is bounded (with the bound in the error) before
// anything is allocated. The bounds sit far above any model this project trains or could run in a browser.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace attend {

constexpr int kMaxModelWidth = 16384;    // model_dim, embed_size, num_hiddens
constexpr int kMaxFfnDim = 65536;        // ffn_dim
constexpr int kMaxHeads = 1024;          // heads
constexpr int kMaxLayers = 256;          // encoder_layers, decoder_layers, num_layers
constexpr int kMaxVocab = 1 << 21;       // src_vocab, tgt_vocab (2,097,152)
constexpr int kMaxSequence = 65536;      // max_len, num_steps

// Throws attend::Error("<what>: <field> is <value>, expected <lo>..<hi>") unless lo <= value <= hi.
void check_config_range(const char* what, const char* field, long long value, long long lo, long long hi);

// Throws attend::Error("<what>: <field> is <value>, expected in [0, 1)") unless 0 <= value < 1 (a dropout).
void check_config_fraction(const char* what, const char* field, float value);

// The value of an integer field: a JSON integer that fits an int, or attend::Error naming the field.
int config_int(const char* what, const char* field, const nlohmann::json& value);

// Reads the field `key` of the config object j into `value` when j has it (a missing one keeps the default): an
// int through config_int, a float, bool or string only from a JSON value of that type, or attend::Error naming the
// field and the type expected.
void config_field(const char* what, const nlohmann::json& j, const char* key, int& value);
void config_field(const char* what, const nlohmann::json& j, const char* key, float& value);
void config_field(const char* what, const nlohmann::json& j, const char* key, bool& value);
void config_field(const char* what, const nlohmann::json& j, const char* key, std::string& value);

}  // namespace attend
