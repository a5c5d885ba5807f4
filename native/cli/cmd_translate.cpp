// `attend translate`: translate --text, a file, or standard input with a model file (or a checkpoint). One output
// line per input line, always: an empty line stays empty, and a line that cannot be translated (invalid UTF-8)
// gives an empty line and a warning naming it, so the rest of the file is never lost.
#include "cli/command.h"
#include "cli/line_io.h"
#include "cli/model_loading.h"
#include "cli/option_checks.h"
#include "data/text_file.h"
#include "error.h"
#include "text/sentence_splitter.h"
#include "text/utf8.h"
#include "translate/clause_join.h"
#include "translate/translator.h"

#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace attend::cli {
namespace {

struct TranslateFlags {
    std::vector<std::string> models;  // several: an ensemble
    std::string text, input, attention_file;
    TranslationOptions options;
    int threads = 0;
    bool tokenized = false, json = false, verbose = false, text_given = false;
    bool length_penalty_given = false;  // else the model's own (Translator::default_options)
    bool min_confidence_given = false;  // likewise
    std::string progress = "auto";
};

nlohmann::json maps_json(const AttentionMaps& a) {
    return {{"layers", a.layers}, {"heads", a.heads}, {"rows", a.rows}, {"cols", a.cols}, {"data", a.data}};
}

bool blank(const std::string& line) {
    return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// The progress of a file on standard error: sentences done of all, sentences per second and the time left. On a
// terminal one line redrawn at most five times a second; elsewhere (a log) a line every ten seconds.
class Progress {
public:
    Progress(size_t total, bool enabled) : total_(total), enabled_(enabled && total > 1), tty_(isatty(STDERR_FILENO)) {}
    void add(size_t n) {
        if (!enabled_) return;
        std::lock_guard<std::mutex> lock(mutex_);
        done_ += n;
        const double now = seconds();
        if (done_ < total_ && now - printed_ < (tty_ ? 0.2 : 10.0)) return;
        printed_ = now;
        const double rate = done_ / std::max(now, 1e-9);
        const int left = static_cast<int>((total_ - done_) / std::max(rate, 1e-9));
        std::fprintf(stderr, tty_ ? "\r\033[K%zu/%zu sentences, %.1f sentences/s, ETA %dm%02ds" : "%zu/%zu sentences, %.1f sentences/s, ETA %dm%02ds\n",
                     done_, total_, rate, left / 60, left % 60);
        if (tty_ && done_ == total_) std::fprintf(stderr, "\n");
        std::fflush(stderr);
    }

private:
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    const size_t total_;
    const bool enabled_, tty_;
    size_t done_ = 0;
    double printed_ = -1e9;
    std::mutex mutex_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Translates lines[i] for every i in `todo` into results[i]; a sentence that fails gets its error in errors[i].
void translate_lines(const Translator& translator, const std::vector<std::string>& lines,
                     const std::vector<size_t>& todo, const TranslationOptions& opt,
                     std::vector<TranslationResult>& results, std::vector<std::string>& errors, Progress& progress) {
    if (opt.beam_size == 1 && !opt.return_attention && opt.max_batch_size > 1) {
        // Greedy search decodes batches of similar-length sentences together (batches side by side on threads),
        // in chunks of a few hundred sentences so that the progress line moves.
        constexpr size_t kChunk = 512;
        std::vector<size_t> failed;
        for (size_t first = 0; first < todo.size(); first += kChunk) {
            const size_t count = std::min(kChunk, todo.size() - first);
            std::vector<std::string> texts;
            texts.reserve(count);
            for (size_t k = 0; k < count; k++) texts.push_back(lines[todo[first + k]]);
            try {
                std::vector<TranslationResult> batch = translator.translate_batch(texts, opt);
                for (size_t k = 0; k < count; k++) results[todo[first + k]] = std::move(batch[k]);
                progress.add(count);
            } catch (const Error&) {
                // One sentence failed its chunk: those go one at a time below, to keep every other one.
                failed.insert(failed.end(), todo.begin() + first, todo.begin() + first + count);
            }
        }
        if (failed.empty()) return;
        TranslationOptions one = opt;
        one.max_batch_size = 1;
        translate_lines(translator, lines, failed, one, results, errors, progress);
        return;
    }
    // Sentences are independent: translate them in parallel, longest first so the threads finish together.
    std::vector<size_t> order = todo;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lines[a].size() > lines[b].size(); });
#pragma omp parallel for schedule(dynamic, 1)
    for (long k = 0; k < static_cast<long>(order.size()); k++) {
        const size_t i = order[k];
        try {
            results[i] = translator.translate(lines[i], opt);
        } catch (const Error& e) {
            errors[i] = e.what();
        }
        progress.add(1);
    }
}

// The sentences' results (in order, sentence_line[k] the line of sentence k, segments[k] where it is in that line)
// joined into their lines' results: a line's sentences one after another and a long sentence's clauses joined again
// (translate/clause_join.h), tokens and scores added up, each sentence's warnings and errors prefixed with its number
// when the line has several. A sentence that fails leaves its place empty and a warning; only a line whose every
// sentence failed is an error.
void join_sentences(const std::vector<std::string>& lines, const std::vector<size_t>& sentence_line,
                    const std::vector<Clause>& segments, const std::vector<TranslationResult>& sentence_results,
                    const std::vector<std::string>& sentence_errors, Lang target,
                    std::vector<TranslationResult>& results, std::vector<std::string>& errors) {
    for (size_t first = 0; first < sentence_line.size();) {
        const size_t line = sentence_line[first];
        size_t last = first;
        while (last < sentence_line.size() && sentence_line[last] == line) ++last;
        if (last - first == 1) {
            results[line] = sentence_results[first];
            errors[line] = sentence_errors[first];
            first = last;
            continue;
        }
        TranslationResult& r = results[line];
        const std::vector<Clause> parts(segments.begin() + first, segments.begin() + last);
        std::vector<std::string> texts, tokenized;
        size_t failed = 0, left_as_is = 0;
        for (size_t k = first; k < last; ++k) {
            const std::string where = "sentence " + std::to_string(k - first + 1) + ": ";
            const bool ok = sentence_errors[k].empty();
            texts.push_back(ok ? sentence_results[k].text : "");
            tokenized.push_back(ok ? sentence_results[k].tokenized : "");
            if (!ok) {
                r.warnings.push_back(where + sentence_errors[k] + ": skipped");
                ++failed;
                continue;
            }
            const TranslationResult& s = sentence_results[k];
            r.target_tokens.insert(r.target_tokens.end(), s.target_tokens.begin(), s.target_tokens.end());
            r.score += s.score;
            r.log_prob += s.log_prob;
            r.finished = r.finished && s.finished;
            left_as_is += s.untranslated;
            r.low_confidence = r.low_confidence || s.low_confidence;
            for (const std::string& w : s.warnings) r.warnings.push_back(where + w);
        }
        for (const PlacedTranslation& p : place_translations(lines[line], parts, texts, target))
            r.text += p.joiner + p.text;
        for (const PlacedTranslation& p : place_translations(lines[line], parts, tokenized, target, /*tokenized=*/true))
            r.tokenized += p.joiner + p.text;
        // The line's confidence: over all the tokens its sentences wrote.
        if (!r.target_tokens.empty()) r.confidence = std::exp(r.log_prob / static_cast<float>(r.target_tokens.size()));
        if (failed == last - first) errors[line] = "no sentence of the line could be translated";
        r.untranslated = left_as_is > 0 && left_as_is + failed == last - first;  // the line is its source
        first = last;
    }
}

void run_translate(TranslateFlags& f) {
    validate_options(f.options);
    if (f.threads < 0) throw Error("--threads must be at least 1, got " + std::to_string(f.threads));
    Translator translator = load_translator(f.models);
    if (!f.length_penalty_given) f.options.length_penalty = translator.default_options().length_penalty;
    if (!f.min_confidence_given) f.options.min_confidence = translator.default_options().min_confidence;
    std::vector<std::string> lines;
    if (f.text_given) {
        if (blank(f.text)) throw Error("the text to translate is empty");
        lines.push_back(f.text);
    } else {
        lines = read_input_lines(f.input, /*check_utf8=*/false);
    }
    if (lines.empty()) throw Error("nothing to translate: give --text, --input FILE, or lines on standard input");

    TranslationOptions& opt = f.options;
    opt.return_attention = !f.attention_file.empty();
    if (f.threads > 0) omp_set_num_threads(f.threads);

    const size_t n = lines.size();
    std::vector<TranslationResult> results(n);
    std::vector<std::string> errors(n);
    std::vector<size_t> todo;
    for (size_t i = 0; i < n; i++) {
        if (blank(lines[i])) continue;  // an empty line in, an empty line out
        const size_t bad = utf8_find_invalid(lines[i]);
        if (bad != std::string::npos)
            errors[i] = "invalid UTF-8 at byte " + std::to_string(bad) + " of the line";
        else
            todo.push_back(i);
    }
    const auto start = std::chrono::steady_clock::now();
    // A model trained on single sentences translates a paragraph sentence by sentence (Moses' splitting rules with
    // the source language's non-breaking prefixes), and a long sentence clause by clause; a line's translation is
    // its sentences' one after another, a long sentence's clauses joined again.
    std::vector<std::string> sentences;
    std::vector<size_t> sentence_line;
    std::vector<Clause> segments;
    for (size_t i : todo)
        for (Clause& s : translator.segments(lines[i], opt)) {
            sentences.push_back(s.text);
            sentence_line.push_back(i);
            segments.push_back(std::move(s));
        }
    std::vector<size_t> all(sentences.size());
    std::iota(all.begin(), all.end(), size_t{0});
    std::vector<TranslationResult> sentence_results(sentences.size());
    std::vector<std::string> sentence_errors(sentences.size());
    Progress progress(sentences.size(),
                      f.progress == "on" || (f.progress == "auto" && !f.text_given && isatty(STDERR_FILENO)));
    translate_lines(translator, sentences, all, opt, sentence_results, sentence_errors, progress);
    join_sentences(lines, sentence_line, segments, sentence_results, sentence_errors,
                   translator.model().target_pipeline.lang, results, errors);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // A line's warnings: why it was skipped, or what happened to its translation. A low confidence alone is a
    // warning to read, not a line that failed: it leaves the exit status alone.
    std::vector<size_t> low_confidence(n);
    for (size_t k = 0; k < sentence_results.size(); k++)
        low_confidence[sentence_line[k]] += sentence_errors[k].empty() && sentence_results[k].low_confidence;
    std::vector<std::vector<std::string>> warnings(n);
    size_t skipped = 0, warned = 0, flagged = 0;
    for (size_t i = 0; i < n; i++) {
        if (!errors[i].empty()) {
            warnings[i].push_back(errors[i] + ": skipped (an empty line out)");
            results[i] = TranslationResult{};
            skipped++;
        }
        warnings[i].insert(warnings[i].end(), results[i].warnings.begin(), results[i].warnings.end());
        if (warnings[i].size() > low_confidence[i]) warned++;
        if (low_confidence[i] > 0) flagged++;
        for (const std::string& w : warnings[i])
            std::fprintf(stderr, "attend: warning: line %zu: %s\n", i + 1, w.c_str());
    }

    for (size_t i = 0; i < n; i++) {
        const TranslationResult& r = results[i];
        const std::string& text = f.tokenized ? r.tokenized : r.text;
        if (!f.json) {
            write_stdout(text + "\n");
            continue;
        }
        const bool translated = !blank(lines[i]) && errors[i].empty();
        nlohmann::json j = {{"line", i + 1}, {"text", text}, {"warnings", warnings[i]}};
        if (translated) {
            j["score"] = r.score;
            j["confidence"] = r.confidence;
            if (low_confidence[i] > 0) j["low_confidence"] = true;
            j["tokens"] = r.target_tokens;
            j["finished"] = r.finished;
            if (r.untranslated) j["untranslated"] = true;
        } else {
            j["skipped"] = !errors[i].empty();
        }
        write_stdout(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    finish_stdout();
    if (f.verbose)
        std::fprintf(stderr, "%zu sentences in %.2f s (%.1f ms per sentence, beam %d, %d threads)\n", sentences.size(),
                     seconds, sentences.empty() ? 0.0 : 1000.0 * seconds / sentences.size(), opt.beam_size,
                     omp_get_max_threads());
    if (!f.attention_file.empty()) {
        nlohmann::json out = nlohmann::json::array();
        for (size_t k = 0; k < sentence_results.size(); ++k) {  // one entry per sentence (a line may hold several)
            const TranslationResult& r = sentence_results[k];
            out.push_back({{"line", sentence_line[k] + 1}, {"text", r.text}, {"source_tokens", r.source_tokens},
                           {"target_tokens", r.target_tokens},
                           {"cross", maps_json(r.cross)}, {"encoder_self", maps_json(r.encoder_self)},
                           {"decoder_self", maps_json(r.decoder_self)}});
        }
        write_text_file(f.attention_file,
                        nlohmann::json{{"format", "attend-attention"},
                                       {"note", "maps are [layers, heads, rows, cols]; cross rows = target tokens, "
                                                "cols = source tokens"},
                                       {"sentences", out}}.dump() +
                            "\n");
    }
    // The count of flagged lines goes beside the others, so that a long run's last line says how many of its
    // warnings were only that.
    const std::string flagged_part = flagged > 0 ? ", " + std::to_string(flagged) + " flagged low confidence" : "";
    if (warned > 0) {
        std::fprintf(stderr, "attend: %zu of %zu lines skipped, %zu with warnings%s (exit status %d)\n", skipped, n,
                     warned, flagged_part.c_str(), kExitSkipped);
        exit_status() = kExitSkipped;
    } else if (flagged > 0) {
        std::fprintf(stderr, "attend: %zu of %zu lines translated, %zu flagged low confidence (exit status 0)\n", n, n,
                     flagged);
    }
}

CommandRegistrar registrar([](CLI::App& app) {
    auto f = std::make_shared<TranslateFlags>();
    TranslationOptions& o = f->options;
    CLI::App* cmd = app.add_subcommand(
        "translate",
        "Translate text with a model file (greedy or beam search). One output line per input line; exit status " +
            std::to_string(kExitSkipped) +
            " when some line was skipped (invalid UTF-8), truncated (longer than the model accepts) or cut by the "
            "length limit, each named in a warning on standard error");
    cmd->add_option("-m,--model", f->models,
                    "Model file (.safetensors) or training checkpoint; given more than once, an ensemble of them")
        ->required();
    cmd->add_option("-t,--text", f->text, "One sentence to translate");
    cmd->add_option("-i,--input", f->input, "File with one sentence a line (.gz too); default: standard input");
    cmd->add_option("-b,--beam", o.beam_size, "Beam size (1: greedy; at most " + std::to_string(kMaxBeamSize) + ")")
        ->capture_default_str();
    cmd->add_option("--length-penalty", o.length_penalty,
                    "alpha in log P / L^alpha (default: the model's own, else " + help_number(o.length_penalty) + ")");
    cmd->add_flag("!--no-copy-through", o.copy_through,
                  "Translate URLs, e-mail addresses, numbers and names like any text (default: copied unchanged)");
    cmd->add_flag("!--no-recase-capitals", o.recase_capitals,
                  "Translate a sentence in capitals as it is (default: read in sentence case, translated into capitals)");
    cmd->add_flag("!--no-align-markup", o.align_markup,
                  "Put markup tags back at the same share of the words (default: around the words that the model's "
                  "cross attention aligns with the words they marked)");
    cmd->add_option("--min-confidence", o.min_confidence,
                    "Warn about a translation whose confidence (the geometric mean of its tokens' probabilities) is "
                    "below this, 0..1 (default: the model's own, else 0: never)");
    cmd->add_option("--clause-split-words", o.clause_split_words,
                    "A sentence of more words is translated clause by clause, split at semicolons and at a comma "
                    "before 'and' ('und', 'et') (0: never)")
        ->capture_default_str();
    cmd->add_option("--max-input-length", o.max_input_length,
                    "Most source tokens translated, <eos> included (0: the model's limit); a longer sentence is cut "
                    "with a warning");
    cmd->add_option("--max-length", o.max_length,
                    "Most tokens to generate (0: the model's limit; never more than --max-length-ratio allows)");
    cmd->add_option("--max-length-ratio", o.max_length_ratio,
                    "At most ratio x source tokens + 10 tokens are generated (0: no limit relative to the source)")
        ->capture_default_str();
    cmd->add_option("--no-repeat-ngram-size", o.no_repeat_ngram_size,
                    "Never generate an n-gram of this size twice (0: off)")->capture_default_str();
    cmd->add_option("--repetition-penalty", o.repetition_penalty,
                    "Divide the logits of tokens generated before by this (> 1 discourages repeats; 1: off)")
        ->capture_default_str();
    cmd->add_option("--max-token-run", o.max_token_run, "No token more than this many times in a row (0: off)")
        ->capture_default_str();
    cmd->add_option("--max-piece-run", o.max_piece_run,
                    "No piece inside a word (a BPE piece such as ter@@) more than this many times in a row, unless the "
                    "source has it so (0: off)")
        ->capture_default_str();
    cmd->add_option("--no-adjacent-repeat-size", o.no_adjacent_repeat_size,
                    "Never generate a phrase of 2 to this many tokens right after itself, unless the source has it so "
                    "(0: off)")
        ->capture_default_str();
    cmd->add_option("--max-char-run", o.max_char_run,
                    "No character more than this many times in a row, unless the source has such a run (0: off)")
        ->capture_default_str();
    cmd->add_flag("!--no-close-marks", o.close_marks,
                  "Beam search: do not prefer a translation that closes the quotation marks and brackets it opens");
    cmd->add_option("--batch", o.max_batch_size,
                    "Greedy search (-b 1) without --attention: sentences decoded together (1: one at a time)")
        ->capture_default_str()->check(at_least(1));
    cmd->add_option("--attention", f->attention_file, "Write every attention map (layer x head) to this JSON file");
    cmd->add_flag("--tokenized", f->tokenized, "Print tokenized output, in the model's case (what BLEU scores)");
    cmd->add_flag("--json", f->json,
                  "One JSON object a line: line, text, score, confidence, tokens, finished, warnings (skipped lines: "
                  "skipped; lines the model cannot read: untranslated; low_confidence)");
    cmd->add_option("--threads", f->threads, "CPU threads (sentences are translated in parallel; default: all)");
    cmd->add_flag("-v,--verbose", f->verbose, "Print timing to standard error");
    cmd->add_option("--progress", f->progress,
                    "Progress on standard error (sentences/s, ETA): on, off, or auto (on a terminal)")
        ->check(CLI::IsMember({"auto", "on", "off"}))
        ->capture_default_str();
    cmd->callback([f, cmd] {
        f->text_given = cmd->count("--text") > 0;
        f->length_penalty_given = cmd->count("--length-penalty") > 0;
        f->min_confidence_given = cmd->count("--min-confidence") > 0;
        if (cmd->count("--threads") > 0 && f->threads < 1)
            throw Error("--threads must be at least 1, got " + std::to_string(f->threads));
        run_translate(*f);
    });
});

}  // namespace
}  // namespace attend::cli
