// `attend translate`: translate --text, a file, or standard input with a model file (or a checkpoint). One output
// line per input line, always: an empty line stays empty, and a line that cannot be translated (invalid UTF-8)
// gives an empty line and a warning naming it, so the rest of the file is never lost.
#include "cli/command.h"
#include "cli/line_io.h"
#include "cli/model_loading.h"
#include "cli/option_checks.h"
#include "cli/translation_flags.h"
#include "data/line_reader.h"
#include "data/text_file.h"
#include "error.h"
#include "text/sentence_splitter.h"
#include "text/utf8.h"
#include "translate/clause_join.h"
#include "translate/translator.h"

#include <omp.h>

#include <signal.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace attend::cli {
namespace {

struct TranslateFlags {
    std::vector<std::string> models;  // several: an ensemble
    std::string text, input, attention_file;
    std::string prefix;  // target tokens, space-separated
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

// The progress on standard error: sentences done (of all, when the input is a file whose lines were counted),
// sentences per second and the time left. On a terminal one line redrawn at most five times a second; elsewhere (a
// log) a line every ten seconds.
class Progress {
public:
    Progress(size_t total, bool enabled) : total_(total), enabled_(enabled), tty_(isatty(STDERR_FILENO)) {}
    void add(size_t n) {
        if (!enabled_) return;
        std::lock_guard<std::mutex> lock(mutex_);
        done_ += n;
        const double now = seconds();
        if (done_ != total_ && now - printed_ < (tty_ ? 0.2 : 10.0)) return;
        printed_ = now;
        const double rate = done_ / std::max(now, 1e-9);
        char line[160];
        if (total_ > 0) {
            const int left = static_cast<int>((total_ - std::min(done_, total_)) / std::max(rate, 1e-9));
            std::snprintf(line, sizeof line, "%zu/%zu sentences, %.1f sentences/s, ETA %dm%02ds", done_, total_, rate,
                          left / 60, left % 60);
        } else {
            std::snprintf(line, sizeof line, "%zu sentences, %.1f sentences/s", done_, rate);
        }
        std::fprintf(stderr, tty_ ? "\r\033[K%s" : "%s\n", line);
        std::fflush(stderr);
    }
    void end() {
        if (enabled_ && tty_ && printed_ > 0) std::fprintf(stderr, "\n");
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

// SIGINT and SIGTERM: the lines translated so far are written, whole and in order, and the run stops with the
// status of a process that the signal ended (128 + the signal). A second signal stops at once.
std::atomic<int> g_stop_signal{0};

extern "C" void on_translate_signal(int signal) {
    int none = 0;
    if (!g_stop_signal.compare_exchange_strong(none, signal)) std::_Exit(128 + signal);
}

bool stop_requested() { return g_stop_signal.load(std::memory_order_relaxed) != 0; }

// Installed without SA_RESTART: a read of standard input waiting for the next line returns, so a stop is seen.
class StopSignals {
public:
    StopSignals() {
        struct sigaction action {};
        action.sa_handler = on_translate_signal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &old_int_);
        sigaction(SIGTERM, &action, &old_term_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }

private:
    struct sigaction old_int_ {}, old_term_ {};
};

// Translates lines[i] for every i in `todo` into results[i] and sets done[i]; a sentence that fails gets its error
// in errors[i]. A stop request leaves the sentences not yet started undone.
void translate_lines(const Translator& translator, const std::vector<std::string>& lines,
                     const std::vector<size_t>& todo, const TranslationOptions& opt,
                     std::vector<TranslationResult>& results, std::vector<std::string>& errors,
                     std::vector<char>& done, Progress& progress) {
    if (opt.beam_size == 1 && !opt.return_attention && opt.max_batch_size > 1) {
        // Greedy search decodes batches of similar-length sentences together (batches side by side on threads), in
        // groups small enough that the progress line moves and a stop is not kept waiting long.
        constexpr size_t kGroup = 128;
        std::vector<size_t> failed;
        for (size_t first = 0; first < todo.size() && !stop_requested(); first += kGroup) {
            const size_t count = std::min(kGroup, todo.size() - first);
            std::vector<std::string> texts;
            texts.reserve(count);
            for (size_t k = 0; k < count; k++) texts.push_back(lines[todo[first + k]]);
            try {
                std::vector<TranslationResult> batch = translator.translate_batch(texts, opt);
                for (size_t k = 0; k < count; k++) {
                    results[todo[first + k]] = std::move(batch[k]);
                    done[todo[first + k]] = 1;
                }
                progress.add(count);
            } catch (const Error&) {
                // One sentence failed its group: those go one at a time below, to keep every other one.
                failed.insert(failed.end(), todo.begin() + first, todo.begin() + first + count);
            }
        }
        if (failed.empty()) return;
        TranslationOptions one = opt;
        one.max_batch_size = 1;
        translate_lines(translator, lines, failed, one, results, errors, done, progress);
        return;
    }
    // Sentences are independent: translate them in parallel, in order, so that a stop leaves the longest run of
    // finished lines at the start.
#pragma omp parallel for schedule(dynamic, 1)
    for (long k = 0; k < static_cast<long>(todo.size()); k++) {
        if (stop_requested()) continue;
        const size_t i = todo[k];
        try {
            results[i] = translator.translate(lines[i], opt);
        } catch (const Error& e) {
            errors[i] = e.what();
        }
        done[i] = 1;
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
            r.alternatives.insert(r.alternatives.end(), s.alternatives.begin(), s.alternatives.end());
            r.score += s.score;
            r.log_prob += s.log_prob;
            r.finished = r.finished && s.finished;
            left_as_is += s.untranslated;
            r.low_confidence = r.low_confidence || s.low_confidence;
            r.source_word_gains.insert(r.source_word_gains.end(), s.source_word_gains.begin(), s.source_word_gains.end());
            r.omitted_words.insert(r.omitted_words.end(), s.omitted_words.begin(), s.omitted_words.end());
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

// The attention maps' JSON file, written a sentence at a time as the lines are done; every write checked.
class AttentionFile {
public:
    explicit AttentionFile(const std::string& path) : path_(path) {
        file_ = std::fopen(path.c_str(), "wb");
        if (!file_) throw Error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
        write("{\"format\":\"attend-attention\",\"note\":\"maps are [layers, heads, rows, cols]; cross rows = target "
              "tokens, cols = source tokens\",\"sentences\":[");
    }
    ~AttentionFile() {
        if (file_) std::fclose(file_);
    }
    void add(size_t line, const TranslationResult& r) {
        const nlohmann::json entry = {{"line", line}, {"text", r.text}, {"source_tokens", r.source_tokens},
                                      {"target_tokens", r.target_tokens}, {"cross", maps_json(r.cross)},
                                      {"encoder_self", maps_json(r.encoder_self)},
                                      {"decoder_self", maps_json(r.decoder_self)}};
        write((entries_++ > 0 ? "," : "") + entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    void close() {
        write("]}\n");
        errno = 0;
        const bool flushed = std::fflush(file_) == 0;
        const int flush_error = errno;
        const bool closed = std::fclose(file_) == 0;
        file_ = nullptr;
        if (!flushed || !closed) failed(!flushed ? flush_error : errno);
    }

private:
    void write(const std::string& text) {
        errno = 0;
        if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::ferror(file_)) failed(errno);
    }
    [[noreturn]] void failed(int error) {
        throw Error(path_ + ": write failed (" + (error != 0 ? std::strerror(error) : "unknown reason") + ")");
    }
    std::string path_;
    std::FILE* file_ = nullptr;
    size_t entries_ = 0;
};

// A line longer than this is skipped with a warning (and never held whole): a paragraph is a few kilobytes.
constexpr size_t kMaxLineBytes = size_t{4} << 20;

struct Tally {
    size_t lines = 0, sentences = 0, skipped = 0, warned = 0, flagged = 0;
};

// Translates a chunk of lines, the first of which is line `first_number` of the input, and writes the result of
// every line that is complete, in order: all of them, or after a stop request the lines before the first one not
// finished. Returns how many lines were written.
size_t translate_chunk(const Translator& translator, const TranslateFlags& f, const std::vector<std::string>& lines,
                       const std::vector<char>& cut, size_t first_number, Progress& progress, AttentionFile* attention,
                       Tally& tally) {
    const TranslationOptions& opt = f.options;
    const size_t n = lines.size();
    std::vector<TranslationResult> results(n);
    std::vector<std::string> errors(n);
    std::vector<std::vector<std::string>> input_notes(n);
    std::vector<size_t> todo;
    for (size_t i = 0; i < n; i++) {
        if (cut[i]) {
            errors[i] = "longer than " + std::to_string(kMaxLineBytes) + " bytes (is it text, one sentence or "
                        "paragraph a line?)";
            continue;
        }
        if (blank(lines[i])) continue;  // an empty line in, an empty line out
        const size_t bad = utf8_find_invalid(lines[i]);
        if (bad != std::string::npos) {
            errors[i] = "invalid UTF-8 at byte " + std::to_string(bad) + " of the line";
            continue;
        }
        // A NUL is no character of a text: it is read as a space (never as the end of the line), and said.
        const size_t nuls = static_cast<size_t>(std::count(lines[i].begin(), lines[i].end(), '\0'));
        if (nuls > 0)
            input_notes[i].push_back(std::to_string(nuls) + (nuls == 1 ? " NUL byte" : " NUL bytes") +
                                     " in the line, read as a space");
        todo.push_back(i);
    }
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
    std::vector<char> done(sentences.size(), 0);
    translate_lines(translator, sentences, all, opt, sentence_results, sentence_errors, done, progress);
    size_t complete = n;
    for (size_t k = 0; k < sentences.size(); k++)
        if (!done[k]) complete = std::min(complete, sentence_line[k]);
    join_sentences(lines, sentence_line, segments, sentence_results, sentence_errors,
                   translator.model().target_pipeline.lang, results, errors);

    // A line's warnings: why it was skipped, or what happened to its translation. A low confidence or words the
    // translation may have left out alone are warnings to read, not a line that failed: they leave the exit
    // status alone.
    std::vector<size_t> low_confidence(n), left_out(n);
    for (size_t k = 0; k < sentence_results.size(); k++) {
        low_confidence[sentence_line[k]] += sentence_errors[k].empty() && sentence_results[k].low_confidence;
        left_out[sentence_line[k]] += sentence_errors[k].empty() && !sentence_results[k].omitted_words.empty();
    }
    for (size_t i = 0; i < complete; i++) {
        const size_t number = first_number + i;
        std::vector<std::string> warnings = input_notes[i];
        if (!errors[i].empty()) {
            warnings.push_back(errors[i] + ": skipped (an empty line out)");
            results[i] = TranslationResult{};
            tally.skipped++;
        }
        warnings.insert(warnings.end(), results[i].warnings.begin(), results[i].warnings.end());
        if (warnings.size() > low_confidence[i] + left_out[i]) tally.warned++;
        if (low_confidence[i] > 0) tally.flagged++;
        for (const std::string& w : warnings) std::fprintf(stderr, "attend: warning: line %zu: %s\n", number, w.c_str());

        const TranslationResult& r = results[i];
        const std::string& text = f.tokenized ? r.tokenized : r.text;
        if (!f.json) {
            write_stdout(text + "\n");
            continue;
        }
        const bool translated = !blank(lines[i]) && errors[i].empty();
        nlohmann::json j = {{"line", number}, {"text", text}, {"warnings", warnings}};
        if (translated) {
            j["score"] = r.score;
            j["confidence"] = r.confidence;
            if (low_confidence[i] > 0) j["low_confidence"] = true;
            j["tokens"] = r.target_tokens;
            j["finished"] = r.finished;
            if (r.untranslated) j["untranslated"] = true;
            if (f.options.omission_gain > 0) {
                nlohmann::json& gains = j["source_word_gains"] = nlohmann::json::array();
                for (const SourceWordGain& g : r.source_word_gains) gains.push_back({{"word", g.word}, {"gain", g.gain}});
                j["omitted"] = r.omitted_words;
            }
            if (!r.alternatives.empty()) {
                nlohmann::json& alternatives = j["alternatives"] = nlohmann::json::array();
                for (const TokenAlternatives& a : r.alternatives)
                    alternatives.push_back({{"token", a.token}, {"probability", a.probability},
                                            {"tokens", a.tokens}, {"probabilities", a.probabilities}});
            }
        } else {
            j["skipped"] = !errors[i].empty();
        }
        write_stdout(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    finish_stdout();  // each chunk reaches the reader as soon as it is done
    if (attention)
        for (size_t k = 0; k < sentence_results.size() && sentence_line[k] < complete; ++k)
            attention->add(first_number + sentence_line[k], sentence_results[k]);  // a line may hold several
    tally.lines += complete;
    for (size_t k = 0; k < sentences.size(); k++) tally.sentences += sentence_line[k] < complete;
    return complete;
}

// The sentences of a file, for a progress line that knows its total: one pass over the file before translating.
size_t count_sentences(const Translator& translator, const std::string& path, const TranslationOptions& opt) {
    LineReader in(path, LineReader::Nul::keep, kMaxLineBytes);
    size_t count = 0;
    for (std::string line; in.next(line);)
        if (!in.cut() && !blank(line) && utf8_find_invalid(line) == std::string::npos)
            count += translator.segments(line, opt).size();
    return count;
}

void run_translate(TranslateFlags& f) {
#if defined(__GLIBC__)
    // One malloc arena for every thread (before the first parallel region makes theirs). With one arena each, a
    // block that one thread frees cannot serve the other, and batches of ever-new sizes fragment both: the peak memory
    // then grew with the number of lines. The threads spend their time in the model, not in malloc, so sharing its
    // lock costs nothing measurable.
    mallopt(M_ARENA_MAX, 1);
#endif
    for (size_t at = 0; at < f.prefix.size();) {
        const size_t end = std::min(f.prefix.find(' ', at), f.prefix.size());
        if (end > at) f.options.target_prefix.push_back(f.prefix.substr(at, end - at));
        at = end + 1;
    }
    validate_options(f.options);
    if (f.threads < 0) throw Error("--threads must be at least 1, got " + std::to_string(f.threads));
    if (f.text_given && blank(f.text)) throw Error("the text to translate is empty");
    Translator translator = load_translator(f.models);
    // A prefix the model cannot write is the command's error, not every line's.
    const Vocab& target_vocab = translator.model().target_vocab;
    for (size_t i = 0; i < f.options.target_prefix.size(); i++)
        if (!target_vocab.contains(f.options.target_prefix[i]) ||
            target_vocab[f.options.target_prefix[i]] == translator.model().eos_id)
            throw Error("--prefix: token " + std::to_string(i + 1) + ", " +
                        nlohmann::json(f.options.target_prefix[i]).dump() +
                        ", is not a token the model's target vocabulary can begin a translation with");
    if (!f.length_penalty_given) f.options.length_penalty = translator.default_options().length_penalty;
    if (!f.min_confidence_given) f.options.min_confidence = translator.default_options().min_confidence;
    TranslationOptions& opt = f.options;
    opt.return_attention = !f.attention_file.empty();
    if (f.threads > 0) omp_set_num_threads(f.threads);

    std::unique_ptr<LineReader> in;
    if (!f.text_given) in = std::make_unique<LineReader>(f.input, LineReader::Nul::keep, kMaxLineBytes);
    std::unique_ptr<AttentionFile> attention;
    if (!f.attention_file.empty()) attention = std::make_unique<AttentionFile>(f.attention_file);
    const bool show_progress = f.progress == "on" || (f.progress == "auto" && !f.text_given && isatty(STDERR_FILENO));
    const bool named_file = in && !f.input.empty() && f.input != "-";
    Progress progress(show_progress && named_file ? count_sentences(translator, f.input, opt) : 0, show_progress);

    // Lines are read and translated a chunk at a time, so memory does not grow with the input, and a chunk is
    // translated as soon as no more of it is waiting to be read: a pipe that delivers one line gets it back at once.
    constexpr size_t kChunkLines = 256;
    StopSignals signals;
    Tally tally;
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> chunk;
    std::vector<char> cut;
    bool more = true;
    while (more && !stop_requested()) {
        chunk.clear();
        cut.clear();
        if (!in) {
            chunk.push_back(f.text);
            cut.push_back(0);
            more = false;
        }
        std::string line;
        while (in && chunk.size() < kChunkLines && !(!chunk.empty() && !in->ready())) {
            if (!in->next(line)) {
                more = in->interrupted();  // a signal other than a stop: go on reading
                break;
            }
            chunk.push_back(std::move(line));
            cut.push_back(in->cut());
        }
        if (chunk.empty()) continue;
        const size_t written =
            translate_chunk(translator, f, chunk, cut, tally.lines + 1, progress, attention.get(), tally);
        if (written < chunk.size()) break;
#if defined(__GLIBC__)
        // glibc keeps what the threads freed in their arenas; handing it back keeps a long input's memory flat.
        malloc_trim(0);
#endif
    }
    progress.end();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int stop_signal = g_stop_signal.load();
    if (stop_signal != 0) {
        // What is written is whole: every line up to the last one counted, each translated in full.
        if (attention) attention->close();
        std::fprintf(stderr, "attend: stopped by %s after %zu lines: the output holds lines 1 to %zu, each complete\n",
                     stop_signal == SIGINT ? "SIGINT" : "SIGTERM", tally.lines, tally.lines);
        exit_status() = 128 + stop_signal;
        return;
    }
    if (tally.lines == 0) throw Error("nothing to translate: give --text, --input FILE, or lines on standard input");
    if (attention) attention->close();
    if (f.verbose)
        std::fprintf(stderr, "%zu sentences in %.2f s (%.1f ms per sentence, beam %d, %d threads)\n", tally.sentences,
                     seconds, tally.sentences == 0 ? 0.0 : 1000.0 * seconds / tally.sentences, opt.beam_size,
                     omp_get_max_threads());
    // The count of flagged lines goes beside the others, so that a long run's last line says how many of its
    // warnings were only that.
    const size_t n = tally.lines;
    const std::string flagged_part =
        tally.flagged > 0 ? ", " + std::to_string(tally.flagged) + " flagged low confidence" : "";
    if (tally.warned > 0) {
        std::fprintf(stderr, "attend: %zu of %zu lines skipped, %zu with warnings%s (exit status %d)\n", tally.skipped,
                     n, tally.warned, flagged_part.c_str(), kExitSkipped);
        exit_status() = kExitSkipped;
    } else if (tally.flagged > 0) {
        std::fprintf(stderr, "attend: %zu of %zu lines translated, %zu flagged low confidence (exit status 0)\n", n, n,
                     tally.flagged);
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
    // The translation options (translate/option_table.h); validate_options() checks their ranges in run_translate.
    add_translation_flags(cmd, o, TranslationFlags::translate);
    cmd->get_option("--batch")->check(at_least(1));  // as it is read, with the flag's name
    cmd->add_option("--prefix", f->prefix,
                    "Each sentence's translation begins with these target tokens (space-separated, as --json's "
                    "tokens and alternatives name them: \"Ein Groß@@\"), and the search goes on from there");
    cmd->add_option("--attention", f->attention_file, "Write every attention map (layer x head) to this JSON file");
    cmd->add_flag("--tokenized", f->tokenized, "Print tokenized output, in the model's case (what BLEU scores)");
    cmd->add_flag("--json", f->json,
                  "One JSON object a line: line, text, score, confidence, tokens, finished, warnings (skipped lines: "
                  "skipped; lines the model cannot read: untranslated; low_confidence; with --omission-gain: source_word_gains, "
                  "omitted; with --alternatives: "
                  "alternatives)");
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
