#include "translate/text_stage.h"

#include "error.h"
#include "text/case_mapping.h"
#include "text/char_class.h"
#include "text/utf8.h"

#include <algorithm>

namespace attend {
namespace {

// The kept word (0-based, of `words`) of each source token but <eos>: the words of `read` tokenized one at a time
// must give the sentence's tokens; nullopt where they do not (a source cut to the model's limit, a d2l model).
std::optional<std::vector<int>> source_words_of_tokens(const std::string& read, int words,
                                                       const std::vector<std::string>& tokens,
                                                       const TextPipeline& pipeline) {
    if (pipeline.type != TextPipelineType::moses_bpe) return std::nullopt;
    std::vector<int> word_of;
    const std::u32string text = utf8_decode(read);
    int k = 0;
    for (size_t i = 0; i < text.size();) {
        if (is_space(text[i])) {
            i++;
            continue;
        }
        size_t end = i;
        while (end < text.size() && !is_space(text[end])) end++;
        for (const std::string& token : preprocess_for_model(utf8_encode(text.substr(i, end - i)), pipeline)) {
            if (word_of.size() + 1 >= tokens.size() || tokens[word_of.size()] != token) return std::nullopt;
            word_of.push_back(k);
        }
        k++;
        i = end;
    }
    if (k != words || word_of.size() + 1 != tokens.size()) return std::nullopt;
    return word_of;
}

// The word of `text` (the detokenized translation, words between spaces) of each target token but <eos>: the
// number of words in the text detokenized up to and with it, less one (-1: the token shows nothing yet).
std::optional<std::vector<int>> target_words_of_tokens(const std::vector<std::string>& tokens, const std::string& text,
                                                       const TextPipeline& pipeline) {
    if (pipeline.type != TextPipelineType::moses_bpe || tokens.empty()) return std::nullopt;
    auto count_words = [](const std::string& t) {
        int n = 0;
        for (size_t i = 0; i < t.size(); i++) n += t[i] != ' ' && (i == 0 || t[i - 1] == ' ');
        return n;
    };
    std::vector<int> word_of;
    std::vector<std::string> prefix;
    for (const std::string& token : tokens) {
        prefix.push_back(token);
        word_of.push_back(count_words(postprocess_for_display(prefix, pipeline)) - 1);
        if (word_of.size() > 1 && word_of.back() < word_of[word_of.size() - 2]) return std::nullopt;
    }
    if (word_of.back() != count_words(text) - 1) return std::nullopt;
    return word_of;
}

// Which target words say each source word, from cross attention [layers, heads, T, S] (<eos> last on both sides;
// row t is the step that predicted target token t): layers first..last and their heads averaged (some layers
// align words, others look at what the next word needs: the article's row at the noun), a target token and a
// source token aligned where each is the other's best (the intersection of both directions, which keeps "Un" out
// of "<b>Un chien</b>"); a source word with no such pair takes every target token whose best it is.
WordAlignment mutual_best_alignment(const AttentionMaps& cross, std::array<int, 2> layers,
                                    const std::vector<int>& source_word, const std::vector<int>& target_word, int words) {
    const int T = cross.rows, S = cross.cols;
    const int TT = static_cast<int>(target_word.size()), SS = static_cast<int>(source_word.size());
    WordAlignment both{std::vector<int>(words, -1), std::vector<int>(words, -1)};
    if (layers[0] < 0 || layers[0] > layers[1] || layers[1] >= cross.layers || TT > T || SS != S - 1 || SS < 1)
        return both;
    std::vector<float> mean(static_cast<size_t>(TT) * SS, 0.0f);  // [TT, SS]
    for (int t = 0; t < TT; t++)
        for (int l = layers[0]; l <= layers[1]; l++)
            for (int h = 0; h < cross.heads; h++) {
                const float* a = cross.data.data() + ((static_cast<size_t>(l) * cross.heads + h) * T + t) * S;
                for (int s = 0; s < SS; s++) mean[static_cast<size_t>(t) * SS + s] += a[s];
            }
    std::vector<int> best_source(TT), best_target(SS, 0);
    for (int t = 0; t < TT; t++) {
        const float* m = mean.data() + static_cast<size_t>(t) * SS;
        best_source[t] = static_cast<int>(std::max_element(m, m + SS) - m);
        for (int s = 0; s < SS; s++)
            if (m[s] > mean[static_cast<size_t>(best_target[s]) * SS + s]) best_target[s] = t;
    }
    WordAlignment either = both;
    auto add = [](WordAlignment& alignment, int k, int w) {
        alignment.first[k] = alignment.first[k] < 0 ? w : std::min(alignment.first[k], w);
        alignment.last[k] = std::max(alignment.last[k], w);
    };
    for (int t = 0; t < TT; t++) {
        const int s = best_source[t];
        if (target_word[t] < 0) continue;
        add(either, source_word[s], target_word[t]);
        if (best_target[s] == t) add(both, source_word[s], target_word[t]);
    }
    for (int k = 0; k < words; k++)
        if (both.first[k] < 0) both.first[k] = either.first[k], both.last[k] = either.last[k];
    return both;
}

bool has_letter(std::u32string_view text) { return std::any_of(text.begin(), text.end(), is_alpha); }

}  // namespace

std::optional<WordAlignment> markup_alignment(const TranslationResult& r, std::string_view model_text, int words,
                                              const TranslatorModel& model) {
    if (r.target_ids.empty() || r.source_tokens.size() < 2) return std::nullopt;
    const std::optional<std::vector<int>> source_word =
        source_words_of_tokens(std::string(model_text), words, r.source_tokens, model.source_pipeline);
    const int T = static_cast<int>(r.target_ids.size());
    const std::vector<std::string> shown(r.target_tokens.begin(), r.target_tokens.begin() + (r.finished ? T - 1 : T));
    const std::optional<std::vector<int>> target_word = target_words_of_tokens(shown, r.text, model.target_pipeline);
    if (!source_word || !target_word) return std::nullopt;

    const std::array<int, 2> layers = alignment_layers_of(model);
    if (!r.cross.data.empty()) return mutual_best_alignment(r.cross, layers, *source_word, *target_word, words);
    return mutual_best_alignment(attention_of_translation(model, r).cross, layers, *source_word, *target_word, words);
}

TranslationAttention attention_of_translation(const TranslatorModel& model, const TranslationResult& r,
                                              bool neurons) {
    const std::vector<int> src = model.source_vocab.ids(r.source_tokens);
    std::vector<int> tgt{model.bos_id};
    tgt.insert(tgt.end(), r.target_ids.begin(), r.target_ids.end() - 1);
    return model.network->attention(src.data(), static_cast<int>(src.size()), tgt.data(),
                                    static_cast<int>(r.target_ids.size()), neurons);
}

const std::vector<std::string>& name_placeholders_of(const TranslatorModel& model) {
    return model.name_placeholders.empty() ? default_name_placeholders() : model.name_placeholders;
}

std::array<int, 2> alignment_layers_of(const TranslatorModel& model) {
    return model.alignment_layers.value_or(std::array<int, 2>{0, model.network->cross_attention_layers() - 1});
}

Staged<MarkupStage::State> MarkupStage::prepare(std::string text, bool& only_markup) const {
    only_markup = false;
    TakenOut out = take_out_asides(utf8_decode(text));
    if (!has_letter(out.kept)) {
        only_markup = true;
        return {std::move(text), std::nullopt};
    }
    if (out.asides.empty() && !out.html) return {std::move(text), std::nullopt};
    return {utf8_encode(out.kept), State{std::move(out.asides), out.words, out.html}};
}

void MarkupStage::restore(TranslationResult& r, const State& state, const StageContext& context) const {
    if (r.untranslated) return;
    std::optional<WordAlignment> alignment;
    if (context.options.align_markup &&
        std::any_of(state.asides.begin(), state.asides.end(), [](const Aside& a) { return a.word >= 0; }))
        alignment = context.align(r, state.words);
    r.text = put_back_asides(r.text, state.asides, state.words, state.html, alignment ? &*alignment : nullptr);
}

Staged<RecasingStage::State> RecasingStage::prepare(std::string text) const {
    if (!in_capitals(text)) return {std::move(text), std::nullopt};
    return {capitalize_first(lowercase(text)), State{}};
}

void RecasingStage::restore(TranslationResult& r, const State&, const StageContext&) const {
    if (!r.untranslated) r.text = uppercase(r.text);
}

MaskedText CopyThroughStage::mask(std::string_view read, const std::vector<std::string>& name_placeholders) const {
    // Names only where both sides are cased: a lowercasing model reads every word in lowercase.
    const bool names = !model_.source_pipeline.moses.lowercase && !model_.target_pipeline.moses.lowercase;
    return mask_copy_spans(read, model_.source_pipeline.lang, model_.target_pipeline.lang, model_.source_vocab,
                           model_.target_vocab, names, name_placeholders, &model_.source_pipeline.prefixes);
}

Staged<CopyThroughStage::State> CopyThroughStage::prepare(std::string text) const {
    MaskedText masked = mask(text, name_placeholders_of(model_));
    if (masked.originals.empty()) return {std::move(text), std::nullopt};
    std::string model_text = masked.text;
    return {std::move(model_text), State{std::move(text), std::move(masked)}};
}

void CopyThroughStage::restore(TranslationResult& r, const State& state, const StageContext&) const {
    const MaskedText& masked = state.masked;
    restore_copy_tokens(r.source_tokens, masked.source_words, masked.originals);
    restore_copy_tokens(r.target_tokens, masked.target_words, masked.originals);
    if (r.untranslated) return;
    r.text = restore_copy_spans(r.text, masked, false);
    r.tokenized = restore_copy_spans(r.tokenized, masked, model_.target_pipeline.moses.lowercase);
}

bool CopyThroughStage::names_kept(std::string_view translation, const State& state) const {
    return names_written_back(translation, state.masked);
}

std::size_t CopyThroughStage::name_turns() const { return name_placeholders_of(model_).size(); }

std::optional<CopyThroughStage::State> CopyThroughStage::with_names_turned(const State& state,
                                                                           std::size_t shift) const {
    const std::vector<std::string>& names = name_placeholders_of(model_);
    std::vector<std::string> turn(names.begin() + static_cast<std::ptrdiff_t>(shift), names.end());
    turn.insert(turn.end(), names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shift));
    MaskedText masked = mask(state.read, turn);
    if (masked.text == state.masked.text) return std::nullopt;  // the same names in use
    return State{state.read, std::move(masked)};
}

}  // namespace attend
