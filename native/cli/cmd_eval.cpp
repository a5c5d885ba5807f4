// `attend eval`: BLEU and chrF2 of a model on Multi30K splits, one line a split. Sources are the raw files (the
// model's own tokenizer runs on them, as for any user text). Three scores (text/translation_metrics.h): BLEU on
// the lowercased tokenized output against the official tokenized lowercase tok/ files, comparable with
// published Multi30K results (multi-bleu / sacreBLEU tokenize=none); cased BLEU (sacreBLEU's default 13a
// tokenizer) and chrF2 on the detokenized output against the raw references, what a reader of the output sees.
// Any other test set comes as two files, --src and --ref: it has no official tokenized references, so it gets the
// two scores on the detokenized output, cased BLEU (13a, or zh for a Chinese target: the tokenizer sacreBLEU
// picks for the language; --tokenize chooses another) and chrF2, each with its sacreBLEU-style signature line.
// A Tatoeba model (d2l word pipeline: transformer-d2l, bahdanau-d2l) gets the seeds' four-sentence table
// instead of the Multi30K splits: "go . => va !,  bleu 1.000" per line (greedy, bleu with k = 2), then the mean.
#include "cli/command.h"
#include "cli/line_io.h"
#include "cli/model_loading.h"
#include "cli/option_checks.h"
#include "cli/translation_flags.h"
#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/parallel_corpus.h"
#include "data/text_file.h"
#include "error.h"
#include "text/lang.h"
#include "text/translation_metrics.h"
#include "translate/d2l_examples.h"
#include "translate/translator.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace attend::cli {
namespace {

struct EvalFlags {
    std::vector<std::string> models;  // several: an ensemble
    std::string data_dir, output, output_text;
    std::vector<std::string> splits = {"test_2016_flickr"};
    std::string src, ref;  // a test set of any two files instead of the splits
    std::string test;      // or a corpus source (a TSV with its columns)
    std::string tokenize;  // BLEU tokenizer for src/ref; empty: the target language's
    int limit = 0, threads = 0;
    TranslationOptions options;         // every option of the table (translation_flags.h) but max_batch_size
    bool length_penalty_given = false;  // else the model's own (Translator::default_options)
    bool min_confidence_given = false;  // likewise
};

void run_d2l_table(const Translator& translator, int beam) {
    double sum = 0;
    std::vector<D2lExample> rows = run_d2l_examples(translator, beam);
    for (const D2lExample& row : rows) {
        write_stdout(format_d2l_example(row) + "\n");
        sum += row.bleu;
    }
    std::printf("mean bleu (k=2) %.3f over %zu sentences, beam %d\n", sum / rows.size(), rows.size(), beam);
}

// The splits --split names: a comma-separated list, "all" for every held-out split.
std::vector<std::string> expand_splits(const std::vector<std::string>& given) {
    std::vector<std::string> splits;
    for (const std::string& split : given) {
        if (split == "all") {
            for (const std::string& s : multi30k_splits())
                if (s != "train") splits.push_back(s);
        } else {
            splits.push_back(split);
        }
    }
    return splits;
}

// Percentiles of the translations' confidence (TranslationResult::confidence), and how many fall below the
// threshold in use: what `attend export --min-confidence` is chosen from (on val).
std::string confidence_summary(std::vector<float> confidence, float threshold) {
    confidence.erase(std::remove(confidence.begin(), confidence.end(), -1.0f), confidence.end());
    if (confidence.empty()) return "no sentence translated";
    std::sort(confidence.begin(), confidence.end());
    auto percentile = [&](double p) { return confidence[static_cast<size_t>(p / 100 * (confidence.size() - 1))]; };
    char out[256];
    const size_t below = std::lower_bound(confidence.begin(), confidence.end(), threshold) - confidence.begin();
    std::snprintf(out, sizeof out,
                  "percentiles 1%% %.3f, 2%% %.3f, 5%% %.3f, 50%% %.3f; below the threshold %.3g: %zu of %zu (%.1f%%)",
                  percentile(1), percentile(2), percentile(5), percentile(50), threshold, below, confidence.size(),
                  100.0 * below / confidence.size());
    return out;
}

// What one evaluation translates and scores against.
struct TestSet {
    std::string name;                       // the split, or the source file
    std::vector<std::string> sources, raw_refs;
    std::vector<std::string> tok_refs;      // Multi30K's official tokenized references
    bool multi30k = true;                   // false: files, which have no tokenized references
};

TestSet load_split(const TranslatorModel& m, const std::string& dir, const std::string& split) {
    // Any model of Multi30K's languages: a subword model's code names them too (and an error names one it lacks).
    const Lang source = parse_lang(language_code(m.source_pipeline)), target = parse_lang(language_code(m.target_pipeline));
    TestSet set{split, read_lines(multi30k_path(dir, split, source, TextForm::raw)),
                read_lines(multi30k_path(dir, split, target, TextForm::raw)),
                read_lines(multi30k_path(dir, split, target, TextForm::tok))};
    // The tokenized lowercase figure compares Moses tokens with Moses tokens: a raw-text subword model writes none.
    set.multi30k = m.target_pipeline.type != TextPipelineType::sentencepiece;
    if (set.sources.size() != set.tok_refs.size() || set.sources.size() != set.raw_refs.size())
        throw Error("the " + split + " source has " + std::to_string(set.sources.size()) +
                    " lines, the tokenized reference " + std::to_string(set.tok_refs.size()) + ", the raw reference " +
                    std::to_string(set.raw_refs.size()));
    return set;
}

TestSet load_files(const std::string& src, const std::string& ref) {
    TestSet set{src, read_lines(src), read_lines(ref), {}, false};
    if (set.sources.size() != set.raw_refs.size())
        throw Error("eval: the source " + src + " has " + std::to_string(set.sources.size()) + " lines, the reference " +
                    ref + " has " + std::to_string(set.raw_refs.size()) + " (expected one reference line a source line)");
    return set;
}

// A test set as a corpus source (data/parallel_corpus.h: "test.tsv:columns=2,1", "a.zh,a.en"): the lines that are
// not pairs are skipped and counted, and said.
TestSet load_test(const std::string& spec) {
    TestSet set{spec, {}, {}, {}, false};
    const CorpusSourceReport report = read_corpus_source(parse_corpus_source(spec), [&](std::string_view s, std::string_view t, std::int64_t) {
        set.sources.emplace_back(s);
        set.raw_refs.emplace_back(t);
    });
    if (report.skipped.total() > 0)
        std::fprintf(stderr, "eval: %s: %lld pairs of %lld lines, %s\n", spec.c_str(), static_cast<long long>(report.pairs),
                     static_cast<long long>(report.lines), report.skipped.describe().c_str());
    return set;
}

BleuTokenize file_bleu_tokenize(const TranslatorModel& m, const EvalFlags& f) {
    if (!f.tokenize.empty()) return parse_bleu_tokenize(f.tokenize);
    return default_bleu_tokenize(language_code(m.target_pipeline));
}

void eval_set(const Translator& translator, const EvalFlags& f, TestSet set, const std::string& output,
              const std::string& output_text) {
    const TranslatorModel& m = translator.model();
    std::vector<std::string>& sources = set.sources;
    if (f.limit > 0 && static_cast<size_t>(f.limit) < sources.size()) {
        sources.resize(f.limit);
        set.raw_refs.resize(f.limit);
        if (set.multi30k) set.tok_refs.resize(f.limit);
    }
    // Every option as given (else the core's default), but the model's own length penalty and confidence threshold.
    TranslationOptions opt = f.options;
    const TranslationOptions model_defaults = translator.default_options();
    if (!f.length_penalty_given) opt.length_penalty = model_defaults.length_penalty;
    if (!f.min_confidence_given) opt.min_confidence = model_defaults.min_confidence;
    std::vector<std::string> hyps(sources.size()), texts(sources.size());
    std::vector<float> confidence(sources.size(), -1.0f);  // -1: left untranslated
    auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 4)
    for (long i = 0; i < static_cast<long>(sources.size()); i++) {
        TranslationResult r = translator.translate(sources[i], opt);
        hyps[i] = std::move(r.tokenized);
        texts[i] = std::move(r.text);
        if (!r.untranslated) confidence[i] = r.confidence;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string ensemble =
        translator.ensemble_size() > 1 ? " (ensemble of " + std::to_string(translator.ensemble_size()) + ")" : "";
    char head[512];
    std::snprintf(head, sizeof head, "%s %s-%s beam %d%s, length penalty %.2g, %zu sentences", set.name.c_str(),
                  language_code(m.source_pipeline).c_str(), language_code(m.target_pipeline).c_str(), opt.beam_size,
                  ensemble.c_str(), opt.length_penalty, sources.size());
    if (set.multi30k) {
        write_stdout(std::string(head) + ": " + score_translations(hyps, texts, set.tok_refs, set.raw_refs).format() + "\n");
    } else {
        // Without tokenized references the lowercased tokenized score has nothing to compare with.
        write_stdout(std::string(head) +
                     ", cased BLEU and chrF2 of the detokenized output (no Moses-tokenized references to compare with):\n" +
                     score_detokenized(texts, set.raw_refs, file_bleu_tokenize(m, f)).format() + "\n");
    }
    write_stdout(set.name + " confidence: " + confidence_summary(confidence, opt.min_confidence) + "\n");
    finish_stdout();
    std::fprintf(stderr, "translated in %.1f s (%.1f ms per sentence, %d threads)\n", seconds,
                 1000.0 * seconds / sources.size(), omp_get_max_threads());
    if (!output.empty()) write_lines(output, hyps);
    if (!output_text.empty()) write_lines(output_text, texts);
}

// With several splits, each output file gets the split's name before its extension: out.txt -> out.val.txt.
std::string output_for_split(const std::string& output, const std::string& split, bool several) {
    if (output.empty() || !several) return output;
    const std::size_t slash = output.find_last_of('/');
    const std::size_t dot = output.find('.', slash == std::string::npos ? 0 : slash + 1);
    if (dot == std::string::npos) return output + "." + split;
    return output.substr(0, dot) + "." + split + output.substr(dot);
}

void run_eval(const EvalFlags& f, bool beam_given, bool split_given) {
    if (!f.tokenize.empty() && f.src.empty() && f.test.empty())
        throw Error("--tokenize requires --src or --test (the Multi30K splits are scored with their own tokenizations)");
    if (!f.src.empty() || !f.test.empty()) {
        TestSet set = f.test.empty() ? load_files(f.src, f.ref) : load_test(f.test);  // a file error before the model loads
        Translator translator = load_translator(f.models);
        if (f.threads > 0) omp_set_num_threads(f.threads);
        eval_set(translator, f, std::move(set), f.output, f.output_text);
        return;
    }
    Translator translator = load_translator(f.models);
    const TranslatorModel& m = translator.model();
    if (m.target_pipeline.type == TextPipelineType::d2l_words) {
        if (split_given) throw Error(f.models.front() + " is a Tatoeba (d2l word) model: --split names Multi30K data, which it cannot read");
        run_d2l_table(translator, beam_given ? f.options.beam_size : 1);  // the seeds' predict_seq2seq is greedy
        return;
    }
    const std::string dir = f.data_dir.empty() ? default_data_dir() : f.data_dir;
    const std::vector<std::string> splits = expand_splits(f.splits);
    for (const std::string& split : splits)  // names a bad split first
        multi30k_path(dir, split, parse_lang(language_code(m.source_pipeline)), TextForm::raw);
    if (f.threads > 0) omp_set_num_threads(f.threads);
    const bool several = splits.size() > 1;
    for (const std::string& split : splits)
        eval_set(translator, f, load_split(m, dir, split), output_for_split(f.output, split, several),
                 output_for_split(f.output_text, split, several));
}

CommandRegistrar registrar([](CLI::App& app) {
    auto f = std::make_shared<EvalFlags>();
    CLI::App* cmd = app.add_subcommand(
        "eval", "BLEU (lowercased tokenized; cased 13a) and chrF2 of a model on Multi30K splits, cased BLEU and chrF2 "
                "on any --src/--ref files, or the seeds' four-sentence table for a Tatoeba (d2l) model");
    cmd->add_option("-m,--model", f->models, "Model file or checkpoint; given more than once, an ensemble of them")
        ->required();
    cmd->add_option("--split", f->splits,
                    "train, val, test_2016_flickr, test_2017_flickr, test_2017_mscoco; several with commas; all: every "
                    "split but train")
        ->delimiter(',')
        ->capture_default_str();
    CLI::Option* split_option = cmd->get_option("--split");
    cmd->add_option("--data", f->data_dir, "Data folder (default ../shared/data or $ATTEND_DATA)");
    CLI::Option* src = cmd->add_option("--src", f->src,
                                       "A test set of your own instead of the splits: its source file, one sentence "
                                       "a line (plain or .gz); needs --ref");
    CLI::Option* ref = cmd->add_option("--ref", f->ref, "The reference translations of --src, line-aligned with it");
    src->needs(ref)->excludes(split_option);
    ref->needs(src);
    CLI::Option* test = cmd->add_option("--test", f->test,
                                        "A test set of your own as `attend train --test` takes it: a TSV (source in "
                                        "column 1; :columns=2,1 for others) or SOURCE,REFERENCE files");
    test->excludes(split_option)->excludes(src)->excludes(ref);
    cmd->add_option("--tokenize", f->tokenize,
                    "BLEU tokenizer for --src/--ref or --test: none, 13a or zh (default: zh for a Chinese target, else "
                    "13a)")
        ->check(CLI::IsMember({"none", "13a", "zh"}));
    cmd->add_option("--limit", f->limit, "Only the first N sentences")->check(at_least(0));
    // The translation options (translate/option_table.h), as `attend translate` has them, to measure a rule.
    add_translation_flags(cmd, f->options, TranslationFlags::eval);
    cmd->add_option("--output", f->output, "Write the tokenized translations here (several splits: FILE.<split>.ext)");
    cmd->add_option("--output-text", f->output_text, "Write the detokenized translations here (as --output)");
    cmd->add_option("--threads", f->threads, "CPU threads")->check(at_least(1));
    cmd->callback([f, cmd] {
        f->length_penalty_given = cmd->count("--length-penalty") > 0;
        f->min_confidence_given = cmd->count("--min-confidence") > 0;
        run_eval(*f, cmd->count("--beam") > 0, cmd->count("--split") > 0);
    });
});

}  // namespace
}  // namespace attend::cli
