// The language model file: one .safetensors file with everything a character language model needs, in the same
// strict, self-describing form as the translator's (translate/model_file.h).
//
// Tensors: CharLm's parameters under their names (lm/char_lm.h: rnn.weight_ih_l0 ..., linear.weight, linear.bias),
// F32, F16 or I8 with per-row scales (matrices only), as translate/model_tensors.h writes them.
// `__metadata__`:
//   attend.format          "attend-language-model"     attend.format_version  "1"
//   attend.architecture    "char-rnn-lm"               attend.weights_dtype   "F32" | "F16" | "I8"
//   attend.config          CharLmConfig JSON (lm/char_lm.h)
//   attend.text_pipeline   "d2l-chars" (lm/char_corpus.h: letters lowercased, other runs one space, characters)
//   attend.vocab           Vocab JSON; its size is the config's vocab_size
//   attend.card            optional JSON (training data, settings, perplexity; free form)
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "lm/char_lm.h"
#include "text/vocab.h"

namespace attend {

constexpr const char* kLanguageModelFormat = "attend-language-model";
constexpr int kLanguageModelFormatVersion = 1;
constexpr const char* kCharPipeline = "d2l-chars";

struct LanguageModel {
    std::unique_ptr<CharLm> network;
    Vocab vocab;
    DType weights_dtype = DType::F32;
    nlohmann::json card = nlohmann::json::object();

    // The text as the model reads it (d2l's cleaning, then characters; outside the vocabulary: <unk>).
    std::vector<int> encode(const std::string& text) const;
    // A prefix as predict_ch8 reads it: each character as it is (no cleaning), <unk> when not in the vocabulary.
    std::vector<int> encode_prefix(const std::string& prefix) const;
    std::string decode(const std::vector<int>& ids) const;
};

// Checks everything before allocating (format and version, architecture, config bounds, the vocabulary against the
// config, each tensor's presence, shape and dtype, no unexpected tensor), then that every weight is finite. A
// translator file is refused as such. Errors name the file and the problem.
LanguageModel load_language_model(const SafeTensors& file);
LanguageModel load_language_model_bytes(std::vector<uint8_t> bytes, const std::string& source_name = "<memory>");

// dtype: F32, F16 or I8.
std::vector<uint8_t> save_language_model(const LanguageModel& model, DType dtype);

// True when the file's attend.format says language model (what a command checks to pick a loader).
bool is_language_model_file(const SafeTensors& file);

}  // namespace attend
