#include "translate/option_table.h"

#include <cstdio>

namespace attend {

namespace {

using O = TranslationOptions;

TranslationOptionRow integer(const char* field, const char* js, const char* flag, int O::*member, double min,
                             double max, const char* help) {
    return {field, js, flag, OptionKind::integer, member, nullptr, nullptr, min, max, false, false, false, help};
}

TranslationOptionRow number(const char* field, const char* js, const char* flag, float O::*member, double min,
                            double max, const char* help) {
    return {field, js, flag, OptionKind::number, nullptr, member, nullptr, min, max, false, false, false, help};
}

TranslationOptionRow boolean(const char* field, const char* js, const char* flag, bool O::*member, const char* help) {
    return {field, js, flag, OptionKind::boolean, nullptr, nullptr, member, 0, 1, false, false, false, help};
}

TranslationOptionRow model_default(TranslationOptionRow row) {
    row.model_default = true;
    return row;
}

TranslationOptionRow above_min(TranslationOptionRow row) {
    row.above_min = true;
    return row;
}

TranslationOptionRow translate_only(TranslationOptionRow row) {
    row.translate_only = true;
    return row;
}

// JavaScript numbers are doubles: a penalty the core asks only to be finite stays well inside float.
constexpr double kMaxPenalty = 1e6;

}  // namespace

double TranslationOptionRow::get(const TranslationOptions& o) const {
    if (int_field) return o.*int_field;
    if (float_field) return o.*float_field;
    return (o.*bool_field) ? 1.0 : 0.0;
}

void TranslationOptionRow::set(TranslationOptions& o, double value) const {
    if (int_field)
        o.*int_field = static_cast<int>(value);
    else if (float_field)
        o.*float_field = static_cast<float>(value);
    else
        o.*bool_field = value != 0;
}

std::string option_number_text(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.7g", value);  // a float's digits
    return buffer;
}

std::string TranslationOptionRow::range_text() const {
    if (kind == OptionKind::boolean) return "";
    return (above_min ? "above " : "") + option_number_text(min) + ".." + option_number_text(max);
}

std::string TranslationOptionRow::default_text() const {
    const double v = default_value();
    const std::string text =
        kind == OptionKind::boolean ? (v != 0 ? "true" : "false") : option_number_text(v);
    return model_default ? "the model's own, else " + text : text;
}

std::string TranslationOptionRow::help_text() const {
    if (kind == OptionKind::boolean) return help;
    return std::string(help) + " (default: " + default_text() + "; " + range_text() + ")";
}

const std::vector<TranslationOptionRow>& translation_option_table() {
    static const std::vector<TranslationOptionRow> rows = {
        integer("beam_size", "beam", "-b,--beam", &O::beam_size, 1, kMaxBeamSize, "Beam size (1: greedy search)"),
        integer("max_length", "maxLength", "--max-length", &O::max_length, 0, kMaxDecodingLength,
                "Most tokens to generate, <eos> included (0: the model's limit; never more than --max-length-ratio "
                "allows)"),
        integer("max_input_length", "maxInputLength", "--max-input-length", &O::max_input_length, 0,
                kMaxDecodingLength,
                "Most source tokens translated, <eos> included, 0 or at least 2 (0: the model's limit); a longer "
                "sentence is cut with a warning"),
        number("max_length_ratio", "maxLengthRatio", "--max-length-ratio", &O::max_length_ratio, 0, kMaxLengthRatio,
               "At most ratio x source tokens + 10 tokens are generated (0: no limit relative to the source)"),
        model_default(number("length_penalty", "lengthPenalty", "--length-penalty", &O::length_penalty, -kMaxPenalty,
                             kMaxPenalty, "alpha in log P / L^alpha")),
        integer("no_repeat_ngram_size", "noRepeatNgramSize", "--no-repeat-ngram-size", &O::no_repeat_ngram_size, 0,
                kMaxNoRepeatNgramSize, "Never generate an n-gram of this size twice (0: off)"),
        above_min(number("repetition_penalty", "repetitionPenalty", "--repetition-penalty", &O::repetition_penalty, 0,
                         kMaxPenalty,
                         "Divide the logits of tokens generated before by this (> 1 discourages repeats; 1: off)")),
        integer("max_token_run", "maxTokenRun", "--max-token-run", &O::max_token_run, 0, kMaxRunLength,
                "No token more than this many times in a row (0: off)"),
        integer("max_piece_run", "maxPieceRun", "--max-piece-run", &O::max_piece_run, 0, kMaxRunLength,
                "No piece inside a word (a BPE piece such as ter@@) more than this many times in a row, unless the "
                "source has it so (0: off)"),
        integer("no_adjacent_repeat_size", "noAdjacentRepeatSize", "--no-adjacent-repeat-size",
                &O::no_adjacent_repeat_size, 0, kMaxNoRepeatNgramSize,
                "Never generate a phrase of 2 to this many tokens right after itself, unless the source has it so "
                "(0: off)"),
        integer("max_char_run", "maxCharRun", "--max-char-run", &O::max_char_run, 0, kMaxRunLength,
                "No character more than this many times in a row, unless the source has such a run (0: off)"),
        integer("clause_split_words", "clauseSplitWords", "--clause-split-words", &O::clause_split_words, 0,
                kMaxClauseSplitWords,
                "A sentence of more words is translated clause by clause, split at semicolons and at a comma before "
                "'and' ('und', 'et') (0: never; a document, or `attend translate`'s lines)"),
        model_default(number("min_confidence", "minConfidence", "--min-confidence", &O::min_confidence, 0, 1,
                             "Warn about a translation whose confidence (the geometric mean of its tokens' "
                             "probabilities) is below this (0: never)")),
        number("omission_gain", "omissionGain", "--omission-gain", &O::omission_gain, 0, kMaxOmissionGain,
               "Name the source words the translation may have left out: those without which the model finds its "
               "translation more likely by more than this many nats (0: never; each sentence is then scored once "
               "more per source word)"),
        integer("alternatives", "alternatives", "--alternatives", &O::alternatives, 0, kMaxAlternatives,
                "Each target token's this many most probable alternatives, with probabilities (0: none; `attend "
                "translate` prints them with --json)"),
        boolean("copy_through", "copyThrough", "!--no-copy-through", &O::copy_through,
                "Translate URLs, e-mail addresses, numbers and names like any text (default: copied unchanged)"),
        boolean("recase_capitals", "recaseCapitals", "!--no-recase-capitals", &O::recase_capitals,
                "Translate a sentence in capitals as it is (default: read in sentence case, translated into "
                "capitals)"),
        boolean("align_markup", "alignMarkup", "!--no-align-markup", &O::align_markup,
                "Put markup tags back at the same share of the words (default: around the words that the model's "
                "cross attention aligns with the words they marked)"),
        boolean("close_marks", "closeMarks", "!--no-close-marks", &O::close_marks,
                "Beam search: do not prefer a translation that closes the quotation marks and brackets it opens "
                "(default: prefer it)"),
        boolean("return_attention", "attention", nullptr, &O::return_attention,
                "Every attention map with the translation (`attend translate --attention FILE`)"),
        boolean("return_neurons", "neurons", nullptr, &O::return_neurons,
                "The query and key vectors of every attention with the translation, for the neuron view (a "
                "Transformer's; the JavaScript API only)"),
        translate_only(integer("max_batch_size", nullptr, "--batch", &O::max_batch_size, 1, kMaxBatchSize,
                               "Greedy search (-b 1) without --attention: sentences decoded together (1: one at a "
                               "time)")),
    };
    return rows;
}

}  // namespace attend
