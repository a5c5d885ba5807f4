// `attend translate`: translate --text, a file, or standard input with a model file (or a checkpoint).
#include "cli/command.h"
#include "cli/line_io.h"
#include "cli/model_loading.h"
#include "cli/option_checks.h"
#include "data/text_file.h"
#include "error.h"
#include "translate/translator.h"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <fstream>

namespace attend::cli {
namespace {

struct TranslateFlags {
    std::string model, text, input, attention_file;
    int beam = 5, max_length = 0, threads = 0, batch = 32;
    float length_penalty = 0.6f;
    bool tokenized = false, verbose = false, text_given = false;
};

nlohmann::json maps_json(const AttentionMaps& a) {
    return {{"layers", a.layers}, {"heads", a.heads}, {"rows", a.rows}, {"cols", a.cols}, {"data", a.data}};
}

void run_translate(const TranslateFlags& f) {
    Translator translator(load_model_or_checkpoint(f.model));
    std::vector<std::string> lines;
    if (f.text_given) lines.push_back(f.text);
    else lines = read_input_lines(f.input);
    if (lines.empty()) throw Error("nothing to translate: give --text, --input FILE, or lines on standard input");

    TranslationOptions opt;
    opt.beam_size = f.beam;
    opt.length_penalty = f.length_penalty;
    opt.max_length = f.max_length;
    opt.return_attention = !f.attention_file.empty();
    if (f.threads > 0) omp_set_num_threads(f.threads);

    opt.max_batch_size = f.batch;
    std::vector<TranslationResult> results(lines.size());
    std::vector<std::string> errors(lines.size());
    auto start = std::chrono::steady_clock::now();
    if (opt.beam_size == 1 && !opt.return_attention && f.batch > 1) {
        // Greedy search decodes batches of similar-length sentences together (batches side by side on threads).
        results = translator.translate_batch(lines, opt);
    } else {
    // Sentences are independent: translate them in parallel, longest first so the threads finish together.
    std::vector<size_t> order(lines.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lines[a].size() > lines[b].size(); });
#pragma omp parallel for schedule(dynamic, 1)
    for (long k = 0; k < static_cast<long>(order.size()); k++) {
        const size_t i = order[k];
        try {
            results[i] = translator.translate(lines[i], opt);
        } catch (const Error& e) {
            errors[i] = e.what();
        }
    }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t i = 0; i < lines.size(); i++)
        if (!errors[i].empty()) throw Error("line " + std::to_string(i + 1) + ": " + errors[i]);

    for (const TranslationResult& r : results) std::printf("%s\n", (f.tokenized ? r.tokenized : r.text).c_str());
    if (f.verbose)
        std::fprintf(stderr, "%zu sentences in %.2f s (%.1f ms per sentence, beam %d, %d threads)\n", lines.size(), seconds,
                     1000.0 * seconds / lines.size(), f.beam, omp_get_max_threads());
    if (!f.attention_file.empty()) {
        nlohmann::json out = nlohmann::json::array();
        for (const TranslationResult& r : results)
            out.push_back({{"text", r.text}, {"source_tokens", r.source_tokens}, {"target_tokens", r.target_tokens},
                           {"cross", maps_json(r.cross)}, {"encoder_self", maps_json(r.encoder_self)},
                           {"decoder_self", maps_json(r.decoder_self)}});
        std::ofstream file(f.attention_file);
        if (!file) throw Error("cannot write " + f.attention_file);
        file << nlohmann::json{{"format", "attend-attention"},
                               {"note", "maps are [layers, heads, rows, cols]; cross rows = target tokens, cols = source tokens"},
                               {"sentences", out}}.dump()
             << '\n';
    }
}

CommandRegistrar registrar([](CLI::App& app) {
    auto f = std::make_shared<TranslateFlags>();
    CLI::App* cmd = app.add_subcommand("translate", "Translate text with a model file (greedy or beam search)");
    cmd->add_option("-m,--model", f->model, "Model file (.safetensors) or training checkpoint")->required();
    cmd->add_option("-t,--text", f->text, "One sentence to translate");
    cmd->add_option("-i,--input", f->input, "File with one sentence a line (.gz too); default: standard input");
    cmd->add_option("-b,--beam", f->beam, "Beam size (1: greedy)")->capture_default_str();
    cmd->add_option("--length-penalty", f->length_penalty, "alpha in log P / L^alpha")->capture_default_str();
    cmd->add_option("--max-length", f->max_length, "Most tokens to generate (0: 2 x source + 10)");
    cmd->add_option("--batch", f->batch,
                    "Greedy search (-b 1) without --attention: sentences decoded together (1: one at a time)")
        ->capture_default_str()->check(at_least(1));
    cmd->add_option("--attention", f->attention_file, "Write every attention map (layer x head) to this JSON file");
    cmd->add_flag("--tokenized", f->tokenized, "Print tokenized lowercase output (what BLEU is computed on)");
    cmd->add_option("--threads", f->threads, "CPU threads (sentences are translated in parallel)");
    cmd->add_flag("-v,--verbose", f->verbose, "Print timing to standard error");
    cmd->callback([f, cmd] {
        f->text_given = cmd->count("--text") > 0;
        run_translate(*f);
    });
});

}  // namespace
}  // namespace attend::cli
