// `attend eval`: BLEU and chrF2 of a model on Multi30K splits, one line a split. Sources are the raw files (the
// model's own tokenizer runs on them, as for any user text). Three scores (text/translation_metrics.h): BLEU on
// the lowercased tokenized output against the official tokenized lowercase tok/ files, comparable with
// published Multi30K results (multi-bleu / sacreBLEU tokenize=none); cased BLEU (sacreBLEU's default 13a
// tokenizer) and chrF2 on the detokenized output against the raw references, what a reader of the output sees.
// A Tatoeba model (d2l word pipeline: transformer-d2l, bahdanau-d2l) gets the seeds' four-sentence table
// instead: "go . => va !,  bleu 1.000" per line (greedy, bleu with k = 2), then the mean.
#include "cli/command.h"
#include "cli/line_io.h"
#include "cli/model_loading.h"
#include "cli/option_checks.h"
#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/text_file.h"
#include "error.h"
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
    int limit = 0, threads = 0;
    TranslationOptions options;         // beam_size, length_penalty, copy_through, two limits and close_marks are flags
    bool length_penalty_given = false;  // else the model's own (Translator::default_options)
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

void eval_split(const Translator& translator, const EvalFlags& f, const std::string& dir, const std::string& split,
                const std::string& output, const std::string& output_text) {
    const TranslatorModel& m = translator.model();
    std::vector<std::string> sources = read_lines(multi30k_path(dir, split, m.source_pipeline.lang, TextForm::raw));
    std::vector<std::string> refs = read_lines(multi30k_path(dir, split, m.target_pipeline.lang, TextForm::tok));
    std::vector<std::string> raw_refs = read_lines(multi30k_path(dir, split, m.target_pipeline.lang, TextForm::raw));
    if (sources.size() != refs.size() || sources.size() != raw_refs.size())
        throw Error("the " + split + " source has " + std::to_string(sources.size()) + " lines, the tokenized reference " +
                    std::to_string(refs.size()) + ", the raw reference " + std::to_string(raw_refs.size()));
    if (f.limit > 0 && static_cast<size_t>(f.limit) < sources.size()) {
        sources.resize(f.limit);
        refs.resize(f.limit);
        raw_refs.resize(f.limit);
    }
    TranslationOptions opt = translator.default_options();
    opt.beam_size = f.options.beam_size;
    if (f.length_penalty_given) opt.length_penalty = f.options.length_penalty;
    opt.copy_through = f.options.copy_through;
    opt.no_adjacent_repeat_size = f.options.no_adjacent_repeat_size;
    opt.max_piece_run = f.options.max_piece_run;
    opt.close_marks = f.options.close_marks;
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
    TranslationScores scores = score_translations(hyps, texts, refs, raw_refs);
    const std::string ensemble =
        translator.ensemble_size() > 1 ? " (ensemble of " + std::to_string(translator.ensemble_size()) + ")" : "";
    std::printf("%s %s-%s beam %d%s, length penalty %.2g, %zu sentences: %s\n", split.c_str(),
                lang_code(m.source_pipeline.lang).c_str(), lang_code(m.target_pipeline.lang).c_str(), opt.beam_size,
                ensemble.c_str(), opt.length_penalty, sources.size(), scores.format().c_str());
    write_stdout(split + " confidence: " + confidence_summary(confidence, opt.min_confidence) + "\n");
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
    Translator translator = load_translator(f.models);
    const TranslatorModel& m = translator.model();
    if (m.target_pipeline.type == TextPipelineType::d2l_words) {
        if (split_given) throw Error(f.models.front() + " is a Tatoeba (d2l word) model: --split names Multi30K data, which it cannot read");
        run_d2l_table(translator, beam_given ? f.options.beam_size : 1);  // the seeds' predict_seq2seq is greedy
        return;
    }
    const std::string dir = f.data_dir.empty() ? default_data_dir() : f.data_dir;
    const std::vector<std::string> splits = expand_splits(f.splits);
    for (const std::string& split : splits) multi30k_path(dir, split, m.source_pipeline.lang, TextForm::raw);  // names a bad split first
    if (f.threads > 0) omp_set_num_threads(f.threads);
    const bool several = splits.size() > 1;
    for (const std::string& split : splits)
        eval_split(translator, f, dir, split, output_for_split(f.output, split, several),
                   output_for_split(f.output_text, split, several));
}

CommandRegistrar registrar([](CLI::App& app) {
    auto f = std::make_shared<EvalFlags>();
    CLI::App* cmd = app.add_subcommand(
        "eval", "BLEU (lowercased tokenized; cased 13a) and chrF2 of a model on Multi30K splits, or the seeds' "
                "four-sentence table for a Tatoeba (d2l) model");
    cmd->add_option("-m,--model", f->models, "Model file or checkpoint; given more than once, an ensemble of them")
        ->required();
    cmd->add_option("--split", f->splits,
                    "train, val, test_2016_flickr, test_2017_flickr, test_2017_mscoco; several with commas; all: every "
                    "split but train")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--data", f->data_dir, "Data folder (default ../shared/data or $ATTEND_DATA)");
    TranslationOptions& o = f->options;
    cmd->add_option("-b,--beam", o.beam_size, "Beam size (the d2l table: 1 unless given)")
        ->capture_default_str()
        ->check(at_least(1));
    cmd->add_option("--length-penalty", o.length_penalty,
                    "alpha in log P / L^alpha (default: the model's own, else " + help_number(o.length_penalty) + ")")
        ->check(finite());
    cmd->add_option("--limit", f->limit, "Only the first N sentences")->check(at_least(0));
    cmd->add_flag("!--no-copy-through", o.copy_through, "Translate numbers, URLs, e-mail addresses and names like any text");
    cmd->add_option("--no-adjacent-repeat-size", o.no_adjacent_repeat_size,
                    "Never generate a phrase of 2 to this many tokens right after itself, unless the source has it so "
                    "(0: off)")
        ->capture_default_str();
    cmd->add_option("--max-piece-run", o.max_piece_run,
                    "No piece inside a word (a BPE piece such as ter@@) more than this many times in a row, unless the "
                    "source has it so (0: off)")
        ->capture_default_str();
    cmd->add_flag("!--no-close-marks", o.close_marks,
                  "Beam search: do not prefer a translation that closes the quotation marks and brackets it opens");
    cmd->add_option("--output", f->output, "Write the tokenized translations here (several splits: FILE.<split>.ext)");
    cmd->add_option("--output-text", f->output_text, "Write the detokenized translations here (as --output)");
    cmd->add_option("--threads", f->threads, "CPU threads")->check(at_least(1));
    cmd->callback([f, cmd] {
        f->length_penalty_given = cmd->count("--length-penalty") > 0;
        run_eval(*f, cmd->count("--beam") > 0, cmd->count("--split") > 0);
    });
});

}  // namespace
}  // namespace attend::cli
