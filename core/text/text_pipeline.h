// Everything a translator needs to turn raw user text into model tokens and model tokens back into
// display text, for one language. Two kinds:
//   moses+bpe  lowercase -> normalize punctuation -> Moses tokenize -> BPE; undo BPE -> detokenize (Multi30K)
//   d2l-words  the seeds' preprocess_nmt (non-breaking spaces to spaces, lowercase, a space before , . ! ?)
//              -> split on spaces (empty fields dropped); output words joined with single spaces, as the seeds
//              print them ("va !", "j'ai perdu .") (Tatoeba fra-eng)
// It serializes to JSON: the model file's tokenizer description.
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

enum class TextPipelineType { moses_bpe, d2l_words };

struct TextPipeline {
    TextPipelineType type = TextPipelineType::moses_bpe;
    Lang lang = Lang::en;
    MosesPipelineOptions moses;
    NonbreakingPrefixes prefixes;
    std::optional<Bpe> bpe;  // none: word-level tokens (moses+bpe only)
};

// The seeds' d2l word pipeline for `lang`.
TextPipeline d2l_words_pipeline(Lang lang);

// Raw UTF-8 text (one sentence) to the tokens a model sees. Throws attend::Error on invalid UTF-8.
std::vector<std::string> preprocess_for_model(std::string_view raw_text, const TextPipeline& pipeline);

// Model output tokens (BPE pieces or words, without <bos>/<eos>) to display text.
std::string postprocess_for_display(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline);

// Model output tokens to the tokenized words BLEU is computed on (BPE undone, joined with spaces).
std::string postprocess_for_bleu(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline);

// {"type": "moses+bpe", "lang": "en", "lowercase": true, "normalize_punctuation": true, "escape_xml": true,
//  "aggressive_hyphen_splitting": false, "nonbreaking_prefixes": {...}, "bpe": {...} or null}
// {"type": "d2l-words", "lang": "fr"}
// from_json rejects any other type, naming the known ones.
void to_json(nlohmann::json& j, const TextPipeline& pipeline);
void from_json(const nlohmann::json& j, TextPipeline& pipeline);

}  // namespace attend
