// Raw text in, translated text out, with every attention map on request (CTranslate2's Translator, for the
// Transformer and the GRU + Bahdanau models of Attend). Used by `attend translate`, by the WebAssembly module and by the web demo.
#pragma once
#include "attend/translation.h"
#include "decode/search_options.h"
#include "text/sentence_splitter.h"
#include "translate/model_file.h"
#include "translate/text_stage.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace attend {

class Translator {
public:
    explicit Translator(TranslatorModel model);
    static Translator from_bytes(std::vector<uint8_t> bytes, const std::string& source_name = "<memory>");
    // A translator over a model the caller keeps and may go on changing between calls (the trainer's model,
    // translated at each validation); the model must outlive it. Decoding reads the weights as they are: no
    // prepare_decoding(), whose copies would go stale.
    static Translator borrowing(const TranslatorModel& model);
    // An ensemble (decode/ensemble_step_model.h): the search reads the mean of the models' log-probabilities at each
    // step. The models must read and write alike (the same source and target pipelines, vocabularies and special
    // ids; architectures and sizes may differ); throws attend::Error naming the first difference. The first model
    // gives everything else: default options, info(), attention maps, markup alignment.
    static Translator ensemble(std::vector<TranslatorModel> models);
    int ensemble_size() const { return 1 + static_cast<int>(others_.size()); }

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

    // Greedy (options.beam_size 1) or beam search over source ids with their <eos> (1 to max_source_tokens() of
    // them, each an id of the source vocabulary): the best hypothesis. bos_id and eos_id are the model's whatever
    // options say, and max_length is capped at the model's limit. translate() is this with search_options(), after
    // tokenization.
    Hypothesis translate_ids(const std::vector<int>& source, SearchOptions options) const;
    // The search options translate() uses for `source_tokens` (model pieces with <eos>, what source_tokens() gives)
    // of the raw text `text`: the length limits applied, the repetition controls, exempt from the character-run
    // limit the characters that the text itself repeats (none for an empty text), and with copy_through the
    // numbers the tokens spell as the only ones the translation may write in digits.
    SearchOptions search_options(const TranslationOptions& options, const std::vector<std::string>& source_tokens,
                                 std::string_view text) const;

    // Source tokens (model pieces) of a raw sentence, <eos> appended; throws like translate(), and also when the
    // text is longer than the model accepts (naming the limit).
    std::vector<std::string> source_tokens(std::string_view text) const;
    // The options a caller starts from: TranslationOptions' defaults with the model's own decoding settings
    // (attend.decoding: the length penalty tuned on validation data) where its file has them.
    TranslationOptions default_options() const;
    // Languages, config, parameters, dtype, size, card, decoding (the default_options the model sets).
    nlohmann::json info() const;
    const TranslatorModel& model() const { return *model_; }
    // The parts of a text translated one at a time: its sentences (Moses' rules with the source language's
    // non-breaking prefixes), and the clauses of a sentence longer than options.clause_split_words words, each with
    // the text the model reads. Throws attend::Error on invalid UTF-8.
    std::vector<Clause> segments(std::string_view text, const TranslationOptions& options) const;
    int max_source_tokens() const;  // including <eos>

private:
    // A text through the stages (translate/text_stage.h: recasing, markup, copy-through) and what the model reads
    // of it; each stage that changed it keeps its state, in the stages' order, for restoring the translation.
    using StageState = std::variant<RecasingStage::State, MarkupStage::State, CopyThroughStage::State>;
    struct PreparedText {
        std::string original;     // the caller's text
        std::string text;         // what the model reads
        bool letterless = false;  // digits, punctuation, symbols (or markup) alone: left as it is
        std::vector<StageState> stages;
    };
    PreparedText prepare(std::string_view text, const TranslationOptions& options) const;
    // The stages' restores in reverse order, and what the Translator itself says of a result.
    void finish(TranslationResult& r, const PreparedText& prepared, const TranslationOptions& options) const;
    // translate() and translate_batch() of prepared texts.
    TranslationResult translate_prepared(const PreparedText& prepared, const TranslationOptions& options) const;
    // The source tokens and the best translation of a prepared text, not yet made whole (finish()).
    TranslationResult search_prepared(const PreparedText& prepared, const TranslationOptions& options) const;
    // When r, the translation of `prepared`, lost a name placeholder or wrote one twice, the text masked with the
    // model's other name placeholders first, in turn: the first translation that writes each back once replaces r,
    // and the text it came from is returned. Nothing when r needs no other try or none did better.
    std::optional<PreparedText> retry_names(TranslationResult& r, const PreparedText& prepared,
                                            const TranslationOptions& options) const;
    std::vector<TranslationResult> translate_batch_prepared(const std::vector<PreparedText>& prepared,
                                                            const TranslationOptions& options) const;
    // Source tokens for translation: cut to the model's limit (keeping <eos>) with a warning into `warnings`.
    std::vector<std::string> source_tokens_truncated(std::string_view text, std::vector<std::string>& warnings,
                                                     int max_input_length) const;
    // Marks r untranslated when the text has no letters, or (with a warning) when most of the source ids `src`
    // (<eos> last) are unknown tokens.
    bool leave_untranslated(TranslationResult& r, const PreparedText& prepared, const std::vector<int>& src) const;
    // options.omission_gain: r's source_word_gains, omitted_words and their warning, from r's model pieces.
    void check_omissions(TranslationResult& r, const TranslationOptions& options) const;
    // The result fields that come from the chosen hypothesis: ids, tokens, text, scores.
    void fill_translation(TranslationResult& r, const Hypothesis& best) const;

    explicit Translator(std::shared_ptr<const TranslatorModel> model);
    const TranslatorNetwork& network() const { return *model_->network; }

    std::shared_ptr<const TranslatorModel> model_;  // never null; holds a network
    std::vector<std::shared_ptr<const TranslatorModel>> others_;  // the rest of an ensemble
    int max_target_tokens() const;  // the least of the ensemble's
    // The most tokens a search may generate for a source of S tokens (with <eos>) under the options' limits.
    int max_length_for(const TranslationOptions& options, int S) const;
    std::vector<TokenShape> target_shapes_;  // [target vocab]: for the character-run limit and the number rule
};

}  // namespace attend
