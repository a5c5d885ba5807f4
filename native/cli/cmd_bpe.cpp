// `attend bpe learn|apply|undo`: joint BPE with subword-nmt semantics, and `attend bench bpe`, which times
// learning 10,000 merges on Multi30K train en+de and applying them to the training set.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/line_io.h"
#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/text_file.h"
#include "error.h"
#include "text/bpe.h"
#include "text/utf8.h"

namespace attend::cli {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Codes files: JSON (the model-file form) when the name ends in .json, subword-nmt's text format otherwise.
void write_codes(const std::string& path, const Bpe& bpe) {
    write_text_file(path, ends_with(path, ".json") ? nlohmann::json(bpe).dump() + "\n" : bpe.to_codes_text());
}

Bpe read_codes(const std::string& path) {
    std::string text = read_file_bytes(path);
    if (!ends_with(path, ".json")) return Bpe::from_codes_text(text);
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw Error(path + ": not valid JSON (expected a BPE description)");
    return j.get<Bpe>();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run_learn(const std::vector<std::string>& inputs, const std::string& output, int merges, int min_frequency) {
    if (inputs.empty()) throw Error("bpe learn: no --input files (expected one or more tokenized text files)");
    auto start = std::chrono::steady_clock::now();
    WordCounts counts;
    for (const std::string& input : inputs) add_word_counts(counts, read_lines(input));
    double read_seconds = seconds_since(start);
    start = std::chrono::steady_clock::now();
    Bpe bpe = Bpe::learn(counts, merges, min_frequency);
    double learn_seconds = seconds_since(start);
    write_codes(output, bpe);
    std::fprintf(stderr, "bpe learn: %zu merges from %zu word types in %.3f s (reading %.3f s) -> %s\n", bpe.size(),
                 counts.size(), learn_seconds, read_seconds, output.c_str());
}

void run_bench(const std::string& data_arg, int merges) {
    std::string data = data_arg.empty() ? default_data_dir() : data_arg;
    std::vector<std::string> en = read_lines(multi30k_path(data, "train", Lang::en, TextForm::tok));
    std::vector<std::string> de = read_lines(multi30k_path(data, "train", Lang::de, TextForm::tok));
    auto start = std::chrono::steady_clock::now();
    WordCounts counts = count_words(en);
    add_word_counts(counts, de);
    Bpe bpe = Bpe::learn(counts, merges);
    double learn = seconds_since(start);
    start = std::chrono::steady_clock::now();
    std::vector<std::string> en_bpe = bpe.apply_lines(en), de_bpe = bpe.apply_lines(de);
    double apply = seconds_since(start);
    std::size_t pieces = 0;
    for (const auto* lines : {&en_bpe, &de_bpe})
        for (const std::string& line : *lines) pieces += static_cast<std::size_t>(std::count(line.begin(), line.end(), ' ')) + 1;
    // Compared with a fixed 10 s target: subword-nmt, the natural peer, is not installed here to be timed.
    std::printf("bpe_learn_%dk_multi30k_train_en_de %.3f s (target 10 s, ratio %.3f)\n", merges / 1000, learn, learn / 10.0);
    std::printf("bpe_apply_multi30k_train_en_de %.3f s (target 2 s, ratio %.3f)\n", apply, apply / 2.0);
    std::printf("bpe_merges_learned %zu merges\n", bpe.size());
    std::printf("bpe_pieces_train_en_de %zu tokens\n", pieces);
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* bpe = app.add_subcommand("bpe", "Byte-pair encoding (subword-nmt semantics): learn, apply, undo");
    bpe->require_subcommand(1);

    auto inputs = std::make_shared<std::vector<std::string>>();
    auto codes_out = std::make_shared<std::string>();
    auto merges = std::make_shared<int>(10000);
    auto min_frequency = std::make_shared<int>(2);
    CLI::App* learn = bpe->add_subcommand("learn", "Learn joint BPE merges from one or more tokenized files");
    learn->add_option("--input,-i", *inputs, "Tokenized text files (plain or .gz); counts are joined")->required();
    learn->add_option("--output,-o", *codes_out, "Codes file: .json (model metadata form) or subword-nmt text")
        ->required();
    learn->add_option("--merges,-s", *merges, "Number of merges")->capture_default_str();
    learn->add_option("--min-frequency", *min_frequency, "Stop when no pair occurs this often")->capture_default_str();
    learn->callback([=] { run_learn(*inputs, *codes_out, *merges, *min_frequency); });

    auto codes = std::make_shared<std::string>();
    auto input = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    CLI::App* apply = bpe->add_subcommand("apply", "Split the words of tokenized text into BPE pieces (\"@@ \" marks)");
    apply->add_option("--codes,-c", *codes, "Codes file (.json or subword-nmt text)")->required();
    apply->add_option("--input,-i", *input, "Input file (default: stdin)");
    apply->add_option("--output,-o", *output, "Output file (default: stdout)");
    apply->callback([=] { write_output_lines(*output, read_codes(*codes).apply_lines(read_input_lines(*input))); });

    auto undo_input = std::make_shared<std::string>();
    auto undo_output = std::make_shared<std::string>();
    CLI::App* undo = bpe->add_subcommand("undo", "Join BPE pieces back into words (remove \"@@ \")");
    undo->add_option("--input,-i", *undo_input, "Input file (default: stdin)");
    undo->add_option("--output,-o", *undo_output, "Output file (default: stdout)");
    undo->callback([=] {
        std::vector<std::string> lines = read_input_lines(*undo_input);
        for (std::string& line : lines) line = undo_bpe(line);
        write_output_lines(*undo_output, lines);
    });

    auto data = std::make_shared<std::string>();
    auto bench_merges = std::make_shared<int>(10000);
    CLI::App* bench = bench_command(app)->add_subcommand(
        "bpe", "Time learning BPE merges on Multi30K train en+de and applying them to the training set");
    bench->add_option("--data", *data, "Data directory (default: $ATTEND_DATA or ../shared/data)");
    bench->add_option("--merges", *bench_merges, "Number of merges")->capture_default_str();
    bench->callback([=] { run_bench(*data, *bench_merges); });
});

}  // namespace
}  // namespace attend::cli
