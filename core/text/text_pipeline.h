// Everything a translator needs to turn raw user text into model tokens and model tokens back into
// display text, for one language: lowercase -> normalize punctuation -> Moses tokenize -> BPE, and
// undo BPE -> detokenize. It serializes to JSON: the model file's tokenizer description.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/bpe.h"
#include "text/lang.h"
#include "text/moses_pipeline.h"
#include "text/nonbreaking_prefixes.h"

namespace attend {

struct TextPipeline {
    Lang lang = Lang::en;
    MosesPipelineOptions moses;
    NonbreakingPrefixes prefixes;
    std::optional<Bpe> bpe;  // none: word-level tokens
};

// Raw UTF-8 text (one sentence) to the tokens a model sees. Throws attend::Error on invalid UTF-8.
std::vector<std::string> preprocess_for_model(std::string_view raw_text, const TextPipeline& pipeline);

// Model output tokens (BPE pieces, without <bos>/<eos>) to display text.
std::string postprocess_for_display(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline);

// {"type": "moses+bpe", "lang": "en", "lowercase": true, "normalize_punctuation": true, "escape_xml": true,
//  "aggressive_hyphen_splitting": false, "nonbreaking_prefixes": {...}, "bpe": {...} or null}
void to_json(nlohmann::json& j, const TextPipeline& pipeline);
void from_json(const nlohmann::json& j, TextPipeline& pipeline);

}  // namespace attend
