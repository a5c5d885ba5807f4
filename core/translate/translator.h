// Raw text in, translated text out, with every attention map on request (CTranslate2's Translator, for the
// Transformer and the GRU + Bahdanau models of Attend). Used by `attend translate`, by the WebAssembly module and by the web demo.
#pragma once
#include "attend/translation.h"
#include "decode/search_options.h"
#include "translate/copy_through.h"
#include "translate/model_file.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attend {

class Translator {
public:
    explicit Translator(TranslatorModel model);
    static Translator from_bytes(std::vector<uint8_t> bytes, const std::string& source_name = "<memory>");

    // Throws attend::Error for empty text, invalid UTF-8 or options out of range. A text longer than the model
    // accepts is cut to its first max_source_tokens() - 1 tokens, with a warning in the result.
    TranslationResult translate(std::string_view text, const TranslationOptions& options = {}) const;
    // Translates in order of source length, similar lengths together (in batches of options.max_batch_size where
    // the search allows: the same tokens as translate(), and far less time per sentence), and returns results in
    // input order. An error names the sentence (1-based).
    std::vector<TranslationResult> translate_batch(const std::vector<std::string>& texts,
                                                   const TranslationOptions& options = {}) const;

    // Translates a text of any length sentence by sentence (Moses' sentence splitting with the source language's
    // non-breaking prefixes; a line break always ends a sentence): the output keeps the input's lines and empty
    // lines. A sentence that cannot be translated leaves an empty place and a warning; nothing else is lost.
    // Throws attend::Error for invalid UTF-8 or options out of range.
    DocumentTranslation translate_document(std::string_view text, const TranslationOptions& options = {}) const;

    // Source tokens (model pieces) of a raw sentence, <eos> appended; throws like translate(), and also when the
    // text is longer than the model accepts (naming the limit).
    std::vector<std::string> source_tokens(std::string_view text) const;
    // The options a caller starts from: TranslationOptions' defaults with the model's own decoding settings
    // (attend.decoding: the length penalty tuned on validation data) where its file has them.
    TranslationOptions default_options() const;
    // Languages, config, parameters, dtype, size, card, decoding (the default_options the model sets).
    nlohmann::json info() const;
    const TranslatorModel& model() const { return model_; }
    int max_source_tokens() const;  // including <eos>

private:
    // translate() of a text whose copy-through spans are already masked.
    TranslationResult translate_masked(std::string_view text, const TranslationOptions& options) const;
    std::vector<TranslationResult> translate_batch_masked(const std::vector<std::string>& texts,
                                                          const TranslationOptions& options) const;
    // The masked text of `text` (its spans, when options.copy_through), and the result with the spans put back.
    MaskedText mask(std::string_view text, const TranslationOptions& options) const;
    void unmask(TranslationResult& r, const MaskedText& masked) const;
    // Source tokens for translation: cut to the model's limit (keeping <eos>) with a warning into `warnings`.
    std::vector<std::string> source_tokens_truncated(std::string_view text, std::vector<std::string>& warnings,
                                                     int max_input_length) const;
    // Search options for the source `text` of S tokens (the length limits applied).
    SearchOptions search_options(const TranslationOptions& options, int S, std::string_view text) const;
    // The result fields that come from the chosen hypothesis: ids, tokens, text, scores.
    void fill_translation(TranslationResult& r, const Hypothesis& best) const;
    TranslatorModel model_;
    std::vector<TokenShape> target_shapes_;  // [target vocab]: for the character-run limit
};

}  // namespace attend
