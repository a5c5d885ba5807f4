// The translator model file: one .safetensors file with everything a translator needs (docs/design.md).
//
// Tensors: every parameter of the model under its dotted name (`encoder.layers.0.self_attn.q_proj.weight`),
// stored as F32, F16, or I8; an I8 matrix [rows, cols] comes with `<name>.scale` F32 [rows], its per-row scale
// (value = int8 * scale). Vectors (biases, layer norms) stay F32 whatever the chosen dtype.
// `__metadata__` (string -> string, JSON values as text):
//   attend.format          "attend-translator"          attend.format_version  "1"
//   attend.architecture    "transformer" | "bahdanau"   attend.weights_dtype   "F32" | "F16" | "I8"
//   attend.config          TransformerConfig JSON (model/transformer_config.h) or BahdanauConfig JSON
//                          (model/bahdanau_seq2seq.h, which also lists the GRU + Bahdanau tensor names)
//   attend.source_pipeline / attend.target_pipeline     TextPipeline JSON ("moses+bpe", "d2l-words" or "sentencepiece")
//   attend.source_vocab / attend.target_vocab           Vocab JSON (equal when embeddings are tied)
//   attend.special_tokens  {"pad": "<pad>", "bos": "<bos>", "eos": "<eos>"}
//   attend.card            optional JSON: training data, time, BLEU (free form)
//   attend.decoding        optional JSON: {"length_penalty": alpha, "min_confidence": c, "name_placeholders":
//                          ["Elmo", ...], "alignment_layers": [first, last]} (each optional), the decoding settings
//                          chosen for this model on validation data (names: on template sentences), which translators
//                          use unless the caller sets them
// The source sentence is encoded as its tokens followed by <eos>; the decoder starts from <bos>.
#pragma once
#include "io/safetensors.h"
#include "text/text_pipeline.h"
#include "text/vocab.h"
#include "translate/translator_network.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attend {

constexpr const char* kModelFormat = "attend-translator";
constexpr int kModelFormatVersion = 1;
constexpr float kMaxModelLengthPenalty = 10.0f;  // attend.decoding's length_penalty lies in [0, this]
constexpr size_t kMaxNamePlaceholders = 8;       // attend.decoding's name_placeholders holds 1 to this many

struct TranslatorModel {
    std::unique_ptr<TranslatorNetwork> network;  // of the architecture attend.architecture names
    TextPipeline source_pipeline, target_pipeline;
    Vocab source_vocab, target_vocab;
    int pad_id = 1, bos_id = 2, eos_id = 3;
    DType weights_dtype = DType::F32;  // as stored in the file it came from
    nlohmann::json card = nlohmann::json::object();
    // attend.decoding: alpha in log P / L^alpha tuned for this model (absent: the translators' general default).
    std::optional<float> length_penalty;
    // attend.decoding: the confidence below which a translation is flagged (TranslationOptions::min_confidence).
    std::optional<float> min_confidence;
    // attend.decoding: the names that stand for names the text holds while it is translated, in order of use: those
    // this model writes back best (translate/copy_through.h; empty: default_name_placeholders()). At most
    // kMaxNamePlaceholders, each a capitalized word of letters, no two alike.
    std::vector<std::string> name_placeholders;
    // attend.decoding: the first and last layer (0-based, inclusive) of the cross attention maps whose mean over
    // those layers and their heads aligns words to place markup (TranslationOptions::align_markup); absent: every
    // layer. Which layers align best differs between models (bench/markup_placement.py --choose-layers).
    std::optional<std::array<int, 2>> alignment_layers;
    size_t file_bytes = 0;             // size of the file it came from (0 when built in memory)

    // The network's own (translate/translator_network.h); each throws attend::Error when the model holds none.
    std::string architecture() const;
    ParameterStore& parameters();
    const ParameterStore& parameters() const;
    int max_source_tokens() const;  // in tokens with <eos>
    int max_target_tokens() const;  // generated, <eos> included
    nlohmann::json config_json() const;  // attend.config

private:
    const TranslatorNetwork& checked_network() const;
};

// Checks everything: format and version, config (each number within the bounds of model/config_checks.h),
// vocabularies against the config, every tensor present with its shape and a supported dtype, no unexpected
// tensor, all before the model is allocated, so a file cannot claim more memory than its own size implies; then
// that every weight is a finite number. Errors name the file and the problem (the config field, the tensor).
// Tensors whose names start with `ignored_prefix` (when not empty) are skipped: training checkpoints keep their
// optimizer state beside the model under "optimizer.".
TranslatorModel load_translator_model(const SafeTensors& file, const std::string& ignored_prefix = "");
TranslatorModel load_translator_model_bytes(std::vector<uint8_t> bytes, const std::string& source_name = "<memory>");

// dtype: F32, F16, or I8 (per-row symmetric int8 for matrices).
std::vector<uint8_t> save_translator_model(const TranslatorModel& model, DType dtype);
// The metadata and tensors of save_translator_model, added to a writer that may hold more (checkpoints).
void add_translator_model(SafeTensorsWriter& writer, const TranslatorModel& model, DType dtype);

// Number of parameters (floats) of the network.
size_t parameter_count(const TranslatorModel& model);

// The first way two models read or write text differently: "source pipeline", "target pipeline", "source
// vocabulary", "target vocabulary" or "special token ids"; empty when they read and write alike (what an ensemble
// and an average of models need).
std::string io_difference(const TranslatorModel& a, const TranslatorModel& b);

}  // namespace attend
