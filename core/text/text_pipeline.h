// Everything a translator needs to turn raw user text into model tokens and model tokens back into
// display text, for one language. Three kinds:
//   moses+bpe  lowercase -> normalize punctuation -> Moses tokenize -> BPE; undo BPE -> detokenize (Multi30K)
//   d2l-words  the seeds' preprocess_nmt (non-breaking spaces to spaces, lowercase, a space before , . ! ?)
//              -> split on spaces (empty fields dropped); output words joined with single spaces, as the seeds
//              print them ("va !", "j'ai perdu .") (Tatoeba fra-eng)
//   sentencepiece  any language, any script, no tokenizer: the text cleaned (subword_text) -> SentencePiece pieces
//              (unigram or BPE, with byte fallback: no input is unknown); pieces -> text is the exact inverse
//              (text/sentencepiece.h). Source and target share one model (a joint vocabulary).
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
#include "text/sentencepiece.h"

#include <memory>

namespace attend {

enum class TextPipelineType { moses_bpe, d2l_words, sentencepiece };

struct TextPipeline {
    TextPipelineType type = TextPipelineType::moses_bpe;
    // The language whose tokenization and text rules apply (moses+bpe and d2l-words); a sentencepiece pipeline has
    // none: `language` is its code, any (check_language_code). language_code() gives either.
    Lang lang = Lang::en;
    std::string language;
    MosesPipelineOptions moses;
    NonbreakingPrefixes prefixes;
    std::optional<Bpe> bpe;  // none: word-level tokens (moses+bpe only)
    std::shared_ptr<const SentencePieceModel> sentencepiece;  // sentencepiece only
};

// The language's code: lang_code(lang), or a sentencepiece pipeline's own ("zh", "pt-BR").
std::string language_code(const TextPipeline& pipeline);

// A sentencepiece pipeline for `language` (check_language_code) over `model` (validated).
TextPipeline sentencepiece_pipeline(const std::string& language, std::shared_ptr<const SentencePieceModel> model);

// What every translator reads of a raw text: characters that do not show are not text. A byte-order mark, zero-width
// spaces and word joiners (U+FEFF, U+200B, U+2060) go; NUL and the other C0 controls and DEL become a space (a NUL
// cuts nothing). Throws attend::Error on invalid UTF-8.
std::string visible_text(std::string_view raw_text);

// What a sentencepiece pipeline reads of a raw text, before the model's own whitespace rules: characters that are
// invisible or would make the same text read two ways are taken out or made plain: a byte-order mark, zero-width
// spaces and joiners' look-alikes (U+200B, U+2060, U+FEFF) go; NUL and other C0/C1 controls, tabs, line breaks
// and Unicode spaces (NBSP, U+3000, ...) become a space. Training text and user text pass through the same step.
// Throws attend::Error on invalid UTF-8.
std::string subword_text(std::string_view raw_text);

// The seeds' d2l word pipeline for `lang`.
TextPipeline d2l_words_pipeline(Lang lang);

// Raw UTF-8 text (one sentence) to the tokens a model sees. Throws attend::Error on invalid UTF-8. moses+bpe: an
// escaped bracket or bar the BPE never learned whole is read as a comma.
std::vector<std::string> preprocess_for_model(std::string_view raw_text, const TextPipeline& pipeline);

// Model output tokens (BPE pieces or words, without <bos>/<eos>) to display text. moses+bpe: an entity split the
// way Moses splits HTML text ("&amp; amp ;") reads as its character ("&").
std::string postprocess_for_display(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline);

// Model output tokens to the tokenized words BLEU is computed on (BPE undone, joined with spaces; sentencepiece:
// the display text tokenized as sacreBLEU tokenizes for the language, bleu_tokenized).
std::string postprocess_for_bleu(const std::vector<std::string>& model_tokens, const TextPipeline& pipeline);

// {"type": "moses+bpe", "lang": "en", "lowercase": true, "normalize_punctuation": true, "escape_xml": true,
//  "aggressive_hyphen_splitting": false, "nonbreaking_prefixes": {...}, "bpe": {...} or null}
// {"type": "d2l-words", "lang": "fr"}
// {"type": "sentencepiece", "lang": "zh", "model": SentencePieceModel JSON}
// from_json rejects any other type, naming the known ones.
// A reference sentence (raw text) in the form postprocess_for_bleu gives a translation: the BLEU that validation
// reports. sentencepiece: sacreBLEU's tokenizer for `language` on the text as it is (cased).
std::string bleu_tokenized(std::string_view raw_text, const TextPipeline& pipeline);

void to_json(nlohmann::json& j, const TextPipeline& pipeline);
void from_json(const nlohmann::json& j, TextPipeline& pipeline);

}  // namespace attend
