// `attend tokenize`: the Moses-style pipeline (lowercase -> normalize punctuation -> tokenize) on a file or
// stdin, `attend detokenize` for display, and `attend tokenize --check-multi30k [--cased]`, the acceptance
// table that compares the pipeline with the official Multi30K tok/ files (with --cased: the cased pipeline's
// tokens lowercased, and the round trip detokenize(tokenize(raw)) == raw).
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/command.h"
#include "cli/line_io.h"
#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/nonbreaking_prefix_file.h"
#include "data/text_file.h"
#include "data/tokenizer_check.h"
#include "error.h"
#include "text/detokenizer.h"
#include "text/moses_pipeline.h"
#include "text/utf8.h"

namespace attend::cli {
namespace {

struct TokenizeArgs {
    std::string lang = "en";
    std::string input, output, data;
    bool no_lowercase = false, no_normalize = false, no_escape = false, aggressive = false;
    bool check_multi30k = false, cased = false;
    int show_mismatches = 0;
};

void print_mismatches(const TokenizerCheck& check, const char* input_label) {
    for (const auto& m : check.mismatches)
        std::printf("  line %zu\n    %-9s %s\n    expected: %s\n    produced: %s\n", m.line, input_label, m.raw.c_str(),
                    m.expected.c_str(), m.produced.c_str());
}

void run_check(const TokenizeArgs& args) {
    std::string data = args.data.empty() ? default_data_dir() : args.data;
    if (args.cased)
        std::printf("%-18s %-4s %8s %8s %9s %8s %9s\n", "split", "lang", "lines", "match", "rate", "detok", "rate");
    else
        std::printf("%-18s %-4s %8s %8s %9s\n", "split", "lang", "lines", "match", "rate");
    bool all_pass = true, all_round_trip = true;
    for (const std::string& split : multi30k_splits()) {
        for (Lang lang : {Lang::en, Lang::de, Lang::fr}) {
            TokenizerCheck check = check_multi30k_tokenizer(data, split, lang, args.show_mismatches, args.cased);
            all_pass = all_pass && check.rate() >= 0.995;
            if (!args.cased) {
                std::printf("%-18s %-4s %8zu %8zu %8.3f%%\n", split.c_str(), lang_code(lang).c_str(), check.lines,
                            check.matching, 100.0 * check.rate());
                print_mismatches(check, "raw:");
                continue;
            }
            TokenizerCheck round_trip = check_multi30k_round_trip(data, split, lang, args.show_mismatches);
            all_round_trip = all_round_trip && round_trip.rate() >= 0.95;
            std::printf("%-18s %-4s %8zu %8zu %8.3f%% %8zu %8.3f%%\n", split.c_str(), lang_code(lang).c_str(),
                        check.lines, check.matching, 100.0 * check.rate(), round_trip.matching, 100.0 * round_trip.rate());
            print_mismatches(check, "raw:");
            print_mismatches(round_trip, "tokens:");
        }
    }
    std::printf("target >= 99.5%% on every file%s: %s\n", args.cased ? " (cased, compared lowercased)" : "",
                all_pass ? "met" : "NOT met");
    if (args.cased)
        std::printf("round trip detokenize(tokenize(raw)) == raw, target >= 95%% on every file: %s\n",
                    all_round_trip ? "met" : "NOT met");
    if (!all_pass) throw Error("tokenizer check: some file matches fewer than 99.5% of its lines");
    if (!all_round_trip) throw Error("tokenizer check: some file round-trips fewer than 95% of its lines");
}

void run_tokenize(const TokenizeArgs& args) {
    if (args.check_multi30k) return run_check(args);
    Lang lang = parse_lang(args.lang);
    std::string data = args.data.empty() ? default_data_dir() : args.data;
    NonbreakingPrefixes prefixes = load_nonbreaking_prefixes(data, lang);
    MosesPipelineOptions options;
    options.lowercase = !args.no_lowercase;
    options.normalize_punctuation = !args.no_normalize;
    options.tokenize.escape_xml = !args.no_escape;
    options.tokenize.aggressive_hyphen_splitting = args.aggressive;
    std::vector<std::string> lines = read_input_lines(args.input);
    for (std::size_t i = 0; i < lines.size(); ++i) lines[i] = moses_preprocess_line(lines[i], lang, prefixes, options);
    write_output_lines(args.output, lines);
}

void run_detokenize(const std::string& lang_code_arg, const std::string& input, const std::string& output,
                    bool no_capitalize) {
    Lang lang = parse_lang(lang_code_arg);
    DetokenizeOptions options;
    options.capitalize_first = !no_capitalize;
    std::vector<std::string> lines = read_input_lines(input);
    for (std::string& line : lines) line = detokenize(line, lang, options);
    write_output_lines(output, lines);
}

CommandRegistrar registrar([](CLI::App& app) {
    auto args = std::make_shared<TokenizeArgs>();
    CLI::App* cmd = app.add_subcommand(
        "tokenize", "Lowercase, normalize punctuation and Moses-tokenize text (the Multi30K tok/ preprocessing)");
    cmd->add_option("--lang,-l", args->lang, "Language: en, de, fr")->capture_default_str();
    cmd->add_option("--input,-i", args->input, "Input file, plain or .gz (default: stdin)");
    cmd->add_option("--output,-o", args->output, "Output file (.gz compresses; default: stdout)");
    cmd->add_option("--data", args->data, "Data directory (default: $ATTEND_DATA or ../shared/data)");
    cmd->add_flag("--no-lowercase", args->no_lowercase, "Keep the case");
    cmd->add_flag("--no-normalize", args->no_normalize, "Skip punctuation normalization");
    cmd->add_flag("--no-escape", args->no_escape, "Do not escape & | < > ' \" [ ] as XML entities");
    cmd->add_flag("--aggressive,-a", args->aggressive, "Aggressive hyphen splitting (a-b -> a @-@ b)");
    cmd->add_flag("--check-multi30k", args->check_multi30k,
                  "Compare with the official Multi30K tok/ files and print the per-file match rate");
    cmd->add_flag("--cased", args->cased,
                  "With --check-multi30k: check the cased pipeline (its tokens lowercased) and the detokenizer round trip");
    cmd->add_option("--show-mismatches", args->show_mismatches, "With --check-multi30k: print N mismatches per file");
    cmd->callback([args] { run_tokenize(*args); });

    auto lang = std::make_shared<std::string>("en");
    auto input = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    auto no_capitalize = std::make_shared<bool>(false);
    CLI::App* detok = app.add_subcommand("detokenize", "Turn tokenized text back into display text");
    detok->add_option("--lang,-l", *lang, "Language: en, de, fr")->capture_default_str();
    detok->add_option("--input,-i", *input, "Input file, plain or .gz (default: stdin)");
    detok->add_option("--output,-o", *output, "Output file (default: stdout)");
    detok->add_flag("--no-capitalize", *no_capitalize, "Do not capitalize the first letter");
    detok->callback([=] { run_detokenize(*lang, *input, *output, *no_capitalize); });
});

}  // namespace
}  // namespace attend::cli
