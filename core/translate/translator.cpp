#include "translate/translator.h"

#include "error.h"
#include "decode/beam_search.h"
#include "decode/ensemble_step_model.h"
#include "decode/greedy_search.h"
#include "decode/greedy_search_batch.h"
#include "text/char_class.h"
#include "text/sentence_splitter.h"
#include "text/utf8.h"
#include "translate/clause_join.h"
#include "translate/omissions.h"
#include "translate/text_stage.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <utility>

namespace attend {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

bool only_whitespace(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

std::string number_text(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    if (value == std::floor(value) && std::fabs(value) < 1e15) return std::to_string(static_cast<long long>(value));
    return nlohmann::json(value).dump();
}

void check_range(const char* name, double value, double low, double high) {
    if (!(value >= low && value <= high))  // NaN fails too
        throw Error(std::string(name) + " must be between " + number_text(low) + " and " + number_text(high) +
                    ", got " + number_text(value));
}

// The characters that `text` repeats more than max_run times in a row.
std::u32string long_runs(std::string_view text, int max_run) {
    std::u32string out;
    if (max_run <= 0 || utf8_find_invalid(text) != std::string_view::npos) return out;
    const std::u32string cps = utf8_decode(text);
    int run = 0;
    for (size_t i = 0; i < cps.size(); i++) {
        run = i > 0 && cps[i] == cps[i - 1] ? run + 1 : 1;
        if (run > max_run && out.find(cps[i]) == std::u32string::npos) out.push_back(cps[i]);
    }
    return out;
}

// The share of a source's tokens (<eos> left out) that are the unknown token.
double unknown_share(const std::vector<int>& src, int unk) {
    if (src.size() < 2) return 0;
    return static_cast<double>(std::count(src.begin(), src.end() - 1, unk)) / static_cast<double>(src.size() - 1);
}

void add_cut_warning(TranslationResult& r) {
    if (!r.finished)
        r.warnings.push_back("the translation was cut at " + std::to_string(r.target_ids.size()) +
                             " tokens (the length limit) before the model ended it");
}

}  // namespace

void validate_options(const TranslationOptions& o) {
    check_range("beam size", o.beam_size, 1, kMaxBeamSize);
    if (!std::isfinite(o.length_penalty))
        throw Error("length penalty must be a finite number, got " + number_text(o.length_penalty));
    check_range("max length", o.max_length, 0, kMaxDecodingLength);
    check_range("max input length", o.max_input_length, 0, kMaxDecodingLength);
    if (o.max_input_length == 1)
        throw Error("max input length must be 0 (the model's limit) or at least 2 (a token and <eos>), got 1");
    check_range("max length ratio", o.max_length_ratio, 0, kMaxLengthRatio);
    check_range("no_repeat_ngram_size", o.no_repeat_ngram_size, 0, kMaxNoRepeatNgramSize);
    if (!(std::isfinite(o.repetition_penalty) && o.repetition_penalty > 0))
        throw Error("repetition penalty must be a finite number above 0, got " + number_text(o.repetition_penalty));
    check_range("max batch size", o.max_batch_size, 1, kMaxBatchSize);
    check_range("max char run", o.max_char_run, 0, kMaxRunLength);
    check_range("max token run", o.max_token_run, 0, kMaxRunLength);
    check_range("max piece run", o.max_piece_run, 0, kMaxRunLength);
    check_range("no_adjacent_repeat_size", o.no_adjacent_repeat_size, 0, kMaxNoRepeatNgramSize);
    check_range("clause split words", o.clause_split_words, 0, kMaxClauseSplitWords);
    check_range("min confidence", o.min_confidence, 0, 1);
    check_range("omission gain", o.omission_gain, 0, kMaxOmissionGain);
    check_range("alternatives", o.alternatives, 0, kMaxAlternatives);
    if (o.target_prefix.size() >= static_cast<size_t>(kMaxDecodingLength))
        throw Error("the target prefix is " + std::to_string(o.target_prefix.size()) + " tokens long; at most " +
                    std::to_string(kMaxDecodingLength - 1) + " are allowed");
    for (size_t i = 0; i < o.target_prefix.size(); i++) {
        const std::string& token = o.target_prefix[i];
        if (token.empty()) throw Error("target prefix token " + std::to_string(i + 1) + " is empty");
        if (utf8_find_invalid(token) != std::string_view::npos)
            throw Error("target prefix token " + std::to_string(i + 1) + " is not valid UTF-8");
    }
}

namespace {

std::shared_ptr<const TranslatorModel> prepared(TranslatorModel model) {
    model.architecture();  // throws when the model holds no network
    model.network->prepare_decoding();
    return std::make_shared<const TranslatorModel>(std::move(model));
}

}  // namespace

Translator::Translator(TranslatorModel model) : Translator(prepared(std::move(model))) {}

Translator::Translator(std::shared_ptr<const TranslatorModel> model) : model_(std::move(model)) {
    model_->architecture();  // throws when the model holds no network
    target_shapes_.reserve(model_->target_vocab.size());
    for (int id = 0; id < static_cast<int>(model_->target_vocab.size()); id++)
        target_shapes_.push_back(token_shape(model_->target_vocab.token(id)));
}

Translator Translator::borrowing(const TranslatorModel& model) {
    // An owner-less shared_ptr: the caller keeps the model alive.
    return Translator(std::shared_ptr<const TranslatorModel>(std::shared_ptr<const TranslatorModel>(), &model));
}

Translator Translator::ensemble(std::vector<TranslatorModel> models) {
    if (models.empty()) throw Error("an ensemble needs at least one model");
    auto differ = [&](size_t i, const std::string& what) {
        return Error("model " + std::to_string(i + 1) + " of the ensemble differs from model 1 in its " + what +
                     ": the models of an ensemble must read and write alike");
    };
    for (size_t i = 1; i < models.size(); i++)
        if (const std::string what = io_difference(models[i], models.front()); !what.empty()) throw differ(i, what);
    std::vector<std::shared_ptr<const TranslatorModel>> others;
    for (size_t i = 1; i < models.size(); i++) others.push_back(prepared(std::move(models[i])));
    Translator t(std::move(models.front()));
    t.others_ = std::move(others);
    return t;
}

Translator Translator::from_bytes(std::vector<uint8_t> bytes, const std::string& source_name) {
    return Translator(load_translator_model_bytes(std::move(bytes), source_name));
}

int Translator::max_source_tokens() const {
    int limit = model_->max_source_tokens();
    for (const auto& m : others_) limit = std::min(limit, m->max_source_tokens());
    return limit;
}

int Translator::max_target_tokens() const {
    int limit = model_->max_target_tokens();
    for (const auto& m : others_) limit = std::min(limit, m->max_target_tokens());
    return limit;
}

std::vector<std::string> Translator::source_tokens(std::string_view text) const {
    if (text.empty() || only_whitespace(text)) throw Error("the text to translate is empty");
    std::vector<std::string> tokens = preprocess_for_model(text, model_->source_pipeline);
    if (tokens.empty()) throw Error("the text to translate is empty after tokenization");
    tokens.push_back(model_->target_vocab.token(model_->eos_id));  // the loader checks it has the same id in both
    const int limit = max_source_tokens();
    if (static_cast<int>(tokens.size()) > limit)
        throw Error("the text is " + std::to_string(tokens.size()) + " tokens long (with <eos>); this model accepts at most " +
                    std::to_string(limit) + " tokens");
    return tokens;
}

std::vector<std::string> Translator::source_tokens_truncated(std::string_view text, std::vector<std::string>& warnings,
                                                             int max_input_length) const {
    if (text.empty() || only_whitespace(text)) throw Error("the text to translate is empty");
    std::vector<std::string> tokens = preprocess_for_model(text, model_->source_pipeline);
    if (tokens.empty()) throw Error("the text to translate is empty after tokenization");
    const bool by_option = max_input_length > 0 && max_input_length < max_source_tokens();
    const int limit = by_option ? max_input_length : max_source_tokens();
    if (static_cast<int>(tokens.size()) + 1 > limit) {
        warnings.push_back("the text is " + std::to_string(tokens.size() + 1) + " tokens long (with <eos>); " +
                           (by_option ? "max input length is " : "this model accepts at most ") +
                           std::to_string(limit) + ": only the first " + std::to_string(limit - 1) +
                           " were translated");
        tokens.resize(static_cast<size_t>(limit - 1));
    }
    tokens.push_back(model_->target_vocab.token(model_->eos_id));
    return tokens;
}

int Translator::max_length_for(const TranslationOptions& options, int S) const {
    int limit = max_target_tokens();
    if (options.max_length > 0) limit = std::min(limit, options.max_length);
    if (options.max_length_ratio > 0) {
        // The model's own default (2 S + 10, or a d2l model's num_steps) when the ratio is the default 2.
        const double relative = std::ceil(static_cast<double>(options.max_length_ratio) * S) + 10.0;
        limit = std::min(limit, static_cast<int>(std::min(relative, 1e9)));
    }
    return std::max(1, limit);
}

SearchOptions Translator::search_options(const TranslationOptions& options,
                                         const std::vector<std::string>& source_tokens, std::string_view text) const {
    SearchOptions search;
    search.beam_size = options.beam_size;
    search.length_penalty = options.length_penalty;
    search.max_length = max_length_for(options, static_cast<int>(source_tokens.size()));
    search.bos_id = model_->bos_id;
    search.eos_id = model_->eos_id;
    search.no_repeat_ngram_size = options.no_repeat_ngram_size;
    search.repetition_penalty = options.repetition_penalty;
    search.max_char_run = options.max_char_run;
    search.max_token_run = options.max_token_run;
    search.no_adjacent_repeat_size = options.no_adjacent_repeat_size;
    search.max_piece_run = options.max_piece_run;
    if (options.no_adjacent_repeat_size > 1 || options.max_piece_run > 0)
        for (const std::string& token : source_tokens)
            search.source_ids.push_back(model_->target_vocab.contains(token) ? model_->target_vocab[token] : -1);
    search.token_shapes = &target_shapes_;
    search.char_run_exempt = long_runs(text, options.max_char_run);
    // Numbers are the model's to copy only with copy-through; without it they are text like any other.
    search.numbers_from_source = options.copy_through;
    search.word_start_pieces = model_->target_pipeline.type == TextPipelineType::sentencepiece;
    if (options.copy_through)
        search.source_numbers =
            digit_runs(source_tokens, model_->source_pipeline.type == TextPipelineType::sentencepiece);
    if (options.close_marks) {
        const MarkPairs pairs = marks_pair_up(source_tokens);
        search.close_quotes = pairs.quotes;
        search.close_brackets = pairs.brackets;
    }
    for (size_t i = 0; i < options.target_prefix.size(); i++) {
        const std::string& token = options.target_prefix[i];
        if (!model_->target_vocab.contains(token))
            throw Error("target prefix token " + std::to_string(i + 1) + ", " + nlohmann::json(token).dump() +
                        ", is not in the model's target vocabulary");
        search.prefix.push_back(model_->target_vocab[token]);
        if (search.prefix.back() == model_->eos_id)
            throw Error("target prefix token " + std::to_string(i + 1) + " is " + token +
                        ", which ends a translation: a prefix cannot hold it");
    }
    if (search.prefix.size() >= static_cast<size_t>(search.max_length))
        throw Error("the target prefix is " + std::to_string(search.prefix.size()) +
                    " tokens long; this translation may be at most " + std::to_string(search.max_length) +
                    " tokens long (with <eos>: the model's limit, max length and max length ratio)");
    search.alternatives = options.alternatives;
    return search;
}

namespace {

// The state of type State among a text's stage states; nullptr where that stage left the text as it was.
template <class State, class StageState>
const State* find_state(const std::vector<StageState>& states) {
    for (const StageState& state : states)
        if (const State* s = std::get_if<State>(&state)) return s;
    return nullptr;
}

template <class State, class StageState>
State* find_state(std::vector<StageState>& states) {
    return const_cast<State*>(find_state<State>(std::as_const(states)));
}

}  // namespace

Translator::PreparedText Translator::prepare(std::string_view text, const TranslationOptions& options) const {
    PreparedText p;
    p.original = std::string(text);
    p.text = visible_text(text);  // validates the UTF-8 before anything reads it
    const std::u32string code_points = utf8_decode(p.text);
    p.letterless = std::none_of(code_points.begin(), code_points.end(), [](char32_t cp) { return is_alpha(cp); });
    if (model_->source_pipeline.type != TextPipelineType::moses_bpe) return p;
    auto then = [&](auto staged) {
        p.text = std::move(staged.text);
        if (staged.state) p.stages.emplace_back(std::move(*staged.state));
    };
    if (options.recase_capitals) then(RecasingStage().prepare(std::move(p.text)));
    if (!p.letterless) {
        bool only_markup = false;  // tags alone ("<br>", "<p></p>"): nothing to translate
        then(MarkupStage().prepare(std::move(p.text), only_markup));
        p.letterless = only_markup;
    }
    if (options.copy_through) then(CopyThroughStage(*model_).prepare(std::move(p.text)));
    return p;
}

// A model writes some names back where it drops others in the same place: "A man named Obama is reading a book."
// came out as "Un homme nommé nommé lit un livre.", with Oklahoma as "Un homme nommé d'Oklahoma est en train de lire
// un livre.". Another try costs a search, only for a text whose names the first lost.
std::optional<Translator::PreparedText> Translator::retry_names(TranslationResult& r, const PreparedText& prepared,
                                                                const TranslationOptions& options) const {
    const CopyThroughStage stage(*model_);
    const CopyThroughStage::State* copy = find_state<CopyThroughStage::State>(prepared.stages);
    if (!copy || r.untranslated || stage.names_kept(r.text, *copy)) return std::nullopt;
    for (size_t shift = 1; shift < stage.name_turns(); shift++) {
        std::optional<CopyThroughStage::State> turned = stage.with_names_turned(*copy, shift);
        if (!turned) continue;
        PreparedText other = prepared;
        other.text = turned->masked.text;
        CopyThroughStage::State& other_copy = *find_state<CopyThroughStage::State>(other.stages);
        other_copy = std::move(*turned);
        TranslationResult again = search_prepared(other, options);
        if (again.untranslated || !stage.names_kept(again.text, other_copy)) continue;
        again.preprocess_ms += r.preprocess_ms;
        again.search_ms += r.search_ms;
        r = std::move(again);
        return other;
    }
    return std::nullopt;
}

void Translator::finish(TranslationResult& r, const PreparedText& prepared, const TranslationOptions& options) const {
    // Before the copy-through spans come back into the tokens: the model scores the pieces it read.
    if (options.omission_gain > 0 && !r.untranslated && !r.target_ids.empty()) check_omissions(r, options);
    const CopyThroughStage::State* copy = find_state<CopyThroughStage::State>(prepared.stages);
    // Tokens with copy spans put back spell the spans, not the placeholders the model read: no alignment then.
    const StageContext context{options, [&](const TranslationResult& result, int words) {
                                   return copy ? std::nullopt
                                               : markup_alignment(result, prepared.text, words, *model_);
                               }};
    const CopyThroughStage copy_through(*model_);
    struct Restore {
        TranslationResult& r;
        const StageContext& context;
        const CopyThroughStage& copy_through;
        void operator()(const RecasingStage::State& s) const { RecasingStage().restore(r, s, context); }
        void operator()(const MarkupStage::State& s) const { MarkupStage().restore(r, s, context); }
        void operator()(const CopyThroughStage::State& s) const { copy_through.restore(r, s, context); }
    };
    for (auto state = prepared.stages.rbegin(); state != prepared.stages.rend(); ++state)
        std::visit(Restore{r, context, copy_through}, *state);
    if (r.untranslated) {
        r.text = r.tokenized = prepared.original;
        return;
    }
    if (r.confidence < options.min_confidence) {
        r.low_confidence = true;
        char numbers[64];
        std::snprintf(numbers, sizeof numbers, "%.2f, below %.3g", r.confidence, options.min_confidence);
        r.warnings.push_back("low confidence (" + std::string(numbers) +
                             "): the text is likely unlike what the model was trained on, and the translation "
                             "may be invented");
    }
}

void Translator::check_omissions(TranslationResult& r, const TranslationOptions& options) const {
    const std::vector<int> src = model_->source_vocab.ids(r.source_tokens);
    r.source_word_gains = source_word_gains(network(), r.source_tokens, src, r.target_ids, model_->bos_id,
                                            model_->source_pipeline);
    std::string named;
    for (const SourceWordGain& g : r.source_word_gains) {
        if (!(g.gain > options.omission_gain)) continue;
        r.omitted_words.push_back(g.word);
        named += (named.empty() ? "\"" : ", \"") + g.word + "\"";
    }
    if (!r.omitted_words.empty())
        r.warnings.push_back("the translation may have left out " + named +
                             ": the model finds it as likely without " +
                             (r.omitted_words.size() == 1 ? "that word" : "those words"));
}

TranslationResult Translator::translate(std::string_view text, const TranslationOptions& options) const {
    validate_options(options);
    return translate_prepared(prepare(text, options), options);
}

TranslationResult Translator::search_prepared(const PreparedText& prepared, const TranslationOptions& options) const {
    TranslationResult r;
    const std::string& text = prepared.text;
    auto start = std::chrono::steady_clock::now();
    r.source_tokens = source_tokens_truncated(text, r.warnings, options.max_input_length);
    const std::vector<int> src = model_->source_vocab.ids(r.source_tokens);
    r.preprocess_ms = ms_since(start);
    if (!leave_untranslated(r, prepared, src)) {
        start = std::chrono::steady_clock::now();
        fill_translation(r, translate_ids(src, search_options(options, r.source_tokens, text)));
        add_cut_warning(r);
        r.search_ms = ms_since(start);
    }
    return r;
}

TranslationResult Translator::translate_prepared(const PreparedText& prepared, const TranslationOptions& options) const {
    TranslationResult r = search_prepared(prepared, options);
    const std::optional<PreparedText> other = retry_names(r, prepared, options);
    if ((options.return_attention || options.return_neurons) && !r.target_ids.empty()) {
        const auto start = std::chrono::steady_clock::now();
        TranslationAttention maps = attention_of_translation(*model_, r, options.return_neurons);
        if (options.return_attention) {
            r.encoder_self = std::move(maps.encoder_self);
            r.decoder_self = std::move(maps.decoder_self);
            r.cross = std::move(maps.cross);
        }
        r.neurons = std::move(maps.neurons);
        r.attention_ms = ms_since(start);
    }
    finish(r, other ? *other : prepared, options);
    return r;
}

Hypothesis Translator::translate_ids(const std::vector<int>& source, SearchOptions options) const {
    const int S = static_cast<int>(source.size());
    if (S < 1) throw Error("search: the source sentence is empty");
    if (S > max_source_tokens())
        throw Error("search: the source is " + std::to_string(S) + " tokens long (with <eos>); this model accepts at most " +
                    std::to_string(max_source_tokens()));
    const int vocab = static_cast<int>(model_->source_vocab.size());
    for (int id : source)
        if (id < 0 || id >= vocab)
            throw Error("search: source id " + std::to_string(id) + " is outside the source vocabulary (0.." +
                        std::to_string(vocab - 1) + ")");
    options.bos_id = model_->bos_id;
    options.eos_id = model_->eos_id;
    options.max_length = std::min(options.max_length, max_target_tokens());
    std::unique_ptr<StepModel> step_model = network().search_model(source.data(), S, options.max_length);
    if (!others_.empty()) {
        std::vector<std::unique_ptr<StepModel>> members;
        members.push_back(std::move(step_model));
        for (const auto& m : others_) members.push_back(m->network->search_model(source.data(), S, options.max_length));
        step_model = std::make_unique<EnsembleStepModel>(std::move(members));
    }
    return options.beam_size == 1 ? greedy_search(*step_model, options) : beam_search(*step_model, options).front();
}

std::vector<TranslationResult> Translator::translate_batch(const std::vector<std::string>& texts,
                                                           const TranslationOptions& options) const {
    validate_options(options);
    std::vector<PreparedText> prepared(texts.size());
    for (size_t i = 0; i < texts.size(); i++) {
        try {
            prepared[i] = prepare(texts[i], options);
        } catch (const Error&) {
            prepared[i] = PreparedText{};
            prepared[i].original = prepared[i].text = texts[i];  // translating it reports the error
        }
    }
    return translate_batch_prepared(prepared, options);
}

std::vector<TranslationResult> Translator::translate_batch_prepared(const std::vector<PreparedText>& prepared,
                                                                    const TranslationOptions& options) const {
    const size_t n = prepared.size();
    auto text = [&](size_t i) -> const std::string& { return prepared[i].text; };
    // translate() of one prepared text, an error naming the sentence
    auto one = [&](size_t i) {
        try {
            return translate_prepared(prepared[i], options);
        } catch (const Error& e) {
            throw Error("sentence " + std::to_string(i + 1) + ": " + e.what());
        }
    };
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return text(a).size() < text(b).size(); });
    std::vector<TranslationResult> results(n);
    const bool batched = options.max_batch_size > 1 && options.beam_size == 1 && !options.return_attention &&
                         !options.return_neurons &&
                         options.target_prefix.empty() && options.alternatives == 0 &&
                         network().decodes_batches() && others_.empty();
    if (!batched) {
        for (size_t i : order) results[i] = one(i);
        return results;
    }

    // Source tokens of every sentence first (an error names its sentence before any decoding), then batches of
    // neighbours in token-length order, so that little of a batch is padding.
    std::vector<std::vector<int>> sources(n);
    for (size_t i = 0; i < n; i++) {
        const auto start = std::chrono::steady_clock::now();
        try {
            results[i].source_tokens = source_tokens_truncated(text(i), results[i].warnings, options.max_input_length);
        } catch (const Error& e) {
            throw Error("sentence " + std::to_string(i + 1) + ": " + e.what());
        }
        sources[i] = model_->source_vocab.ids(results[i].source_tokens);
        results[i].preprocess_ms = ms_since(start);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
    // A sentence left untranslated goes alone (translate() leaves it as it is); every other one carries its own
    // rules (its numbers, its phrases said twice, its long runs) in its own row.
    std::vector<size_t> alone;
    order.erase(std::remove_if(order.begin(), order.end(), [&](size_t i) {
                    const bool own =
                        prepared[i].letterless || unknown_share(sources[i], model_->source_vocab.unk()) > 0.5;
                    if (own) alone.push_back(i);
                    return own;
                }), order.end());
    for (size_t i : alone) results[i] = one(i);
    const long batches = static_cast<long>((order.size() + options.max_batch_size - 1) / options.max_batch_size);
    std::vector<std::string> errors(batches);
    // Batches are independent: with several OpenMP threads they run side by side (the matrix products inside
    // then run on one thread each).
#pragma omp parallel for schedule(dynamic, 1)
    for (long batch = 0; batch < batches; batch++) try {
        const size_t first = static_cast<size_t>(batch) * options.max_batch_size;
        const auto start = std::chrono::steady_clock::now();
        const size_t count = std::min(order.size() - first, static_cast<size_t>(options.max_batch_size));
        const int B = static_cast<int>(count);
        int S = 0, capacity = 0;
        std::vector<int> valid(count);
        std::vector<SearchOptions> rows(count);
        for (size_t k = 0; k < count; k++) {
            const size_t i = order[first + k];
            valid[k] = static_cast<int>(sources[i].size());
            S = std::max(S, valid[k]);
            rows[k] = search_options(options, results[i].source_tokens, text(i));
            capacity = std::max(capacity, rows[k].max_length);
        }
        std::vector<int> src(static_cast<size_t>(B) * S, model_->pad_id);
        for (size_t k = 0; k < count; k++)
            std::copy(sources[order[first + k]].begin(), sources[order[first + k]].end(), src.begin() + k * S);
        const std::unique_ptr<StepModel> step_model = network().batch_search_model(src.data(), valid.data(), B, S, capacity);
        std::vector<Hypothesis> hyps = greedy_search_batch(*step_model, rows);
        const double per_sentence_ms = ms_since(start) / count;
        for (size_t k = 0; k < count; k++) {
            const size_t i = order[first + k];
            TranslationResult& r = results[i];
            fill_translation(r, hyps[k]);
            add_cut_warning(r);
            r.search_ms = per_sentence_ms;
            const std::optional<PreparedText> other = retry_names(r, prepared[i], options);
            finish(r, other ? *other : prepared[i], options);
        }
    } catch (const std::exception& e) {
        errors[batch] = e.what();
    }
    for (const std::string& e : errors)
        if (!e.empty()) throw Error(e);
    return results;
}

std::vector<Clause> Translator::segments(std::string_view text, const TranslationOptions& options) const {
    std::vector<Clause> out;
    // Clauses are split at the conjunctions of the languages the Moses pipelines know; other models read sentences.
    const int clause_words =
        model_->source_pipeline.type == TextPipelineType::moses_bpe ? options.clause_split_words : 0;
    for (const SentenceSpan& sentence : split_sentences(text, model_->source_pipeline.prefixes))
        for (Clause& clause : split_clauses(text, sentence, model_->source_pipeline.lang, clause_words))
            out.push_back(std::move(clause));
    return out;
}

DocumentTranslation Translator::translate_document(std::string_view text, const TranslationOptions& options) const {
    validate_options(options);
    utf8_validate(text, "the text");
    DocumentTranslation doc;
    // UTF-16 offsets: count code units up to each span boundary, in one pass over the text.
    std::size_t at = 0, units = 0;
    auto utf16_offset = [&](std::size_t byte) {
        for (; at < byte; at++) {
            const unsigned char b = static_cast<unsigned char>(text[at]);
            if ((b & 0xC0) != 0x80) units += b >= 0xF0 ? 2 : 1;  // a lead byte: one code point (two units above U+FFFF)
        }
        return units;
    };
    std::vector<Clause> clauses = segments(text, options);
    std::vector<std::string> sentence_texts;
    for (Clause& clause : clauses) {
        const SentenceSpan& span = clause.span;
        DocumentSentence s;
        s.begin = span.begin;
        s.end = span.end;
        s.utf16_begin = utf16_offset(span.begin);
        s.utf16_end = utf16_offset(span.end);
        s.line = span.line;
        doc.sentences.push_back(std::move(s));
        sentence_texts.push_back(clause.text);
    }
    std::vector<std::string> errors(sentence_texts.size());
    // The translation begins with the prefix: the first sentence's.
    TranslationOptions rest = options;
    rest.target_prefix.clear();
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < static_cast<long>(sentence_texts.size()); i++) {
        try {
            doc.sentences[i].result = translate(sentence_texts[i], i == 0 ? options : rest);
        } catch (const Error& e) {
            errors[i] = std::string(e.what()) + ": skipped";
        }
    }
    // The output: each input line's sentences one after another, a long sentence's clauses joined again; lines as
    // in the input.
    std::vector<std::string> translations(doc.sentences.size());
    for (size_t i = 0; i < doc.sentences.size(); i++) translations[i] = doc.sentences[i].result.text;
    std::vector<PlacedTranslation> placed =
        place_translations(text, clauses, translations, model_->target_pipeline.lang);
    const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
    std::vector<std::string> out_lines(lines);
    int previous_line = -1, in_line = 0;
    for (size_t i = 0; i < doc.sentences.size(); i++) {
        DocumentSentence& s = doc.sentences[i];
        in_line = s.line == previous_line ? in_line + 1 : 1;
        previous_line = s.line;
        const std::string where = "line " + std::to_string(s.line + 1) + ", sentence " + std::to_string(in_line) + ": ";
        if (!errors[i].empty()) s.result.warnings.push_back(errors[i]);
        for (const std::string& w : s.result.warnings) doc.warnings.push_back(where + w);
        s.joiner = std::move(placed[i].joiner);
        s.placed_text = std::move(placed[i].text);
        out_lines[s.line] += s.joiner + s.placed_text;
    }
    for (int l = 0; l < lines; l++) {
        if (l > 0) doc.text += '\n';
        doc.text += out_lines[l];
    }
    return doc;
}

bool Translator::leave_untranslated(TranslationResult& r, const PreparedText& prepared,
                                    const std::vector<int>& src) const {
    // Digits, punctuation and symbols alone: nothing to translate, and a model asked anyway invents a caption
    // ("50%" came out as "Ein weißer 50, der von einem Hund betet.").
    if (prepared.letterless) return r.untranslated = true;
    // So does a model asked to translate what it cannot read ("東京は日本の首都です。" came out as "Ein
    // Nachrichtungsmeidededekoriert Steuropäiges."): more than half unknown, the source stays as it is.
    const double share = unknown_share(src, model_->source_vocab.unk());
    if (share <= 0.5) return false;
    const size_t tokens = src.size() - 1;
    r.untranslated = true;
    r.warnings.push_back("not translated: " + std::to_string(std::lround(share * tokens)) + " of " +
                         std::to_string(tokens) +
                         " source tokens are unknown to this model (another language or script?); the text is "
                         "left as it is");
    return true;
}

void Translator::fill_translation(TranslationResult& r, const Hypothesis& best) const {
    r.target_ids = best.tokens;
    r.log_prob = best.log_prob;
    r.score = best.score;
    r.confidence = best.tokens.empty() ? 0.0f : std::exp(best.log_prob / static_cast<float>(best.tokens.size()));
    r.finished = best.finished;
    r.target_tokens = model_->target_vocab.tokens(r.target_ids);
    r.alternatives.clear();
    if (!best.token_probs.empty()) {
        const size_t T = best.tokens.size(), k = best.alternative_ids.size() / T;
        r.alternatives.resize(T);
        for (size_t t = 0; t < T; t++) {
            TokenAlternatives& a = r.alternatives[t];
            a.token = r.target_tokens[t];
            a.probability = best.token_probs[t];
            for (size_t j = t * k; j < (t + 1) * k && best.alternative_ids[j] >= 0; j++) {
                a.ids.push_back(best.alternative_ids[j]);
                a.tokens.push_back(model_->target_vocab.token(best.alternative_ids[j]));
                a.probabilities.push_back(best.alternative_probs[j]);
            }
        }
    }
    std::vector<std::string> words(r.target_tokens.begin(), r.target_tokens.end() - (best.finished ? 1 : 0));
    r.text = postprocess_for_display(words, model_->target_pipeline);
    r.tokenized = postprocess_for_bleu(words, model_->target_pipeline);
}

TranslationOptions Translator::default_options() const {
    TranslationOptions o;
    if (model_->length_penalty) o.length_penalty = *model_->length_penalty;
    if (model_->min_confidence) o.min_confidence = *model_->min_confidence;
    return o;
}

nlohmann::json Translator::info() const {
    const TranslationOptions defaults = default_options();
    return {
        {"architecture", model_->architecture()},
        {"source_language", language_code(model_->source_pipeline)},
        {"target_language", language_code(model_->target_pipeline)},
        {"config", model_->config_json()},
        {"parameters", parameter_count(*model_)},
        {"dtype", dtype_name(model_->weights_dtype)},
        {"file_bytes", model_->file_bytes},
        {"source_vocab_size", model_->source_vocab.size()},
        {"target_vocab_size", model_->target_vocab.size()},
        {"max_source_tokens", max_source_tokens()},
        {"card", model_->card},
        {"decoding", {{"length_penalty", defaults.length_penalty},
                      {"length_penalty_from_model", model_->length_penalty.has_value()},
                      {"min_confidence", defaults.min_confidence},
                      {"name_placeholders", name_placeholders_of(*model_)},
                      {"alignment_layers", alignment_layers_of(*model_)},
                      {"alignment_layers_from_model", model_->alignment_layers.has_value()}}},
    };
}

}  // namespace attend
