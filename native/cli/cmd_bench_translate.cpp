// `attend bench translate`: milliseconds per sentence of the Translator (tokenization, BPE, encoder, greedy or
// beam search, detokenization) on the first test2016 English sentences of Multi30k, one thread. Then the same
// model in PyTorch eager mode (tools/torch_translator.py, Debian's python3-torch) on the same source token ids,
// when torch imports: its ms per sentence, the ratio, and how often its greedy ids equal Attend's (which also
// checks the exported weights: a wrong tensor would make them disagree everywhere).
// The machine may be shared: wall-clock figures then depend on the load, so CPU-time figures (this process's
// CPU time; one thread on each side) are printed beside them and give a second, steadier ratio.
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/line_io.h"
#include "cli/model_loading.h"
#include "cli/option_checks.h"
#include "cli/torch_peer.h"
#include "data/data_dir.h"
#include "data/text_file.h"
#include "error.h"
#include "translate/transformer_network.h"
#include "translate/translator.h"

namespace attend::cli {
namespace {

struct BenchTranslateOptions {
    std::string model, ids_file;  // ids_file: where the source ids for the peer go (kept); empty: a temp file
    int sentences = 200, threads = 1, beam = 5, batch = 32;
    bool with_torch = true;
};

// What one search (greedy or beam) produced over all sentences, and how long it took.
struct SearchRun {
    std::string name;  // "greedy", "beam5"
    double total_ms = 0, cpu_ms = 0, search_ms = 0;
    long tokens = 0;
    std::vector<std::vector<int>> ids;
    std::vector<float> log_probs;  // of each sentence's chosen hypothesis
};

double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

std::string default_model_path() { return std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors"; }

// Times translate_all over the sentences (after a warm-up on the first five) and keeps what it produced.
template <typename TranslateAll>
SearchRun timed_search(std::string name, const std::vector<std::string>& sentences, TranslateAll translate_all) {
    SearchRun run;
    run.name = std::move(name);
    translate_all(std::vector<std::string>(sentences.begin(), sentences.begin() + std::min<size_t>(5, sentences.size())));
    const double cpu_start = process_cpu_ms();
    const auto start = std::chrono::steady_clock::now();
    for (TranslationResult& r : translate_all(sentences)) {
        run.search_ms += r.search_ms;
        run.tokens += static_cast<long>(r.target_ids.size());
        run.ids.push_back(std::move(r.target_ids));
        run.log_probs.push_back(r.log_prob);
    }
    run.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    run.cpu_ms = process_cpu_ms() - cpu_start;
    return run;
}

// One sentence at a time, as the web demo and `attend translate -t` do.
SearchRun run_search(const Translator& translator, const std::vector<std::string>& sentences, int beam) {
    TranslationOptions options;
    options.beam_size = beam;
    return timed_search(beam == 1 ? "greedy" : "beam" + std::to_string(beam), sentences,
                        [&](const std::vector<std::string>& list) {
                            std::vector<TranslationResult> results;
                            results.reserve(list.size());
                            for (const std::string& s : list) results.push_back(translator.translate(s, options));
                            return results;
                        });
}

// Greedy search with translate_batch: sentences of similar length decoded together, what `attend translate -b 1`
// does with a file.
SearchRun run_batched_greedy(const Translator& translator, const std::vector<std::string>& sentences, int batch) {
    TranslationOptions options;
    options.beam_size = 1;
    options.max_batch_size = batch;
    return timed_search("greedy_batch" + std::to_string(batch), sentences,
                        [&](const std::vector<std::string>& list) { return translator.translate_batch(list, options); });
}

void print_run(const SearchRun& run, size_t n) {
    std::printf("translate_%s_ms_per_sentence %.3f ms\n", run.name.c_str(), run.total_ms / n);
    std::printf("translate_%s_cpu_ms_per_sentence %.3f ms\n", run.name.c_str(), run.cpu_ms / n);
    std::printf("translate_%s_search_ms_per_sentence %.3f ms\n", run.name.c_str(), run.search_ms / n);
    std::printf("translate_%s_tokens_per_s %.1f tokens/s\n", run.name.c_str(), run.tokens / (run.total_ms * 1e-3));
}

// The source ids of every sentence as the model sees them, with the generation limit Attend used (the
// translator's default: min(max_len, 2 * source tokens + 10)).
void write_source_ids(const std::string& path, const Translator& translator, const std::vector<std::string>& sentences) {
    std::ostringstream out;
    const TranslatorModel& m = translator.model();
    for (const std::string& s : sentences) {
        const std::vector<int> ids = m.source_vocab.ids(translator.source_tokens(s));
        out << std::min(m.max_target_tokens(), 2 * static_cast<int>(ids.size()) + 10);
        for (int id : ids) out << ' ' << id;
        out << '\n';
    }
    write_text_file(path, out.str());
}

struct TorchFigures {
    std::map<std::string, double> figures;                          // name -> value
    std::map<std::string, std::vector<std::vector<int>>> ids;       // search name -> ids per sentence
    std::map<std::string, std::vector<double>> log_probs;           // search name -> log-probability per sentence
};

TorchFigures run_torch(const std::string& model_path, const std::string& ids_path, const Translator& translator,
                       const BenchTranslateOptions& o, size_t n) {
    const std::string args = "--model '" + model_path + "' --ids '" + ids_path + "' --bos " +
                             std::to_string(translator.model().bos_id) + " --eos " +
                             std::to_string(translator.model().eos_id) + " --beam " +
                             std::to_string(o.beam > 1 ? o.beam : 0) + " --threads " + std::to_string(o.threads);
    TorchFigures t;
    run_torch_script("translate", "tools/torch_translator.py", args, [&](const std::string& line) {
        std::istringstream in(line);
        std::string first;
        in >> first;
        if (first == "ids") {
            std::string search;
            size_t index = n;
            double log_prob = 0;
            in >> search >> index >> log_prob;
            std::vector<std::vector<int>>& rows = t.ids[search];
            rows.resize(n);
            t.log_probs[search].resize(n, std::nan(""));
            if (index < n) {
                t.log_probs[search][index] = log_prob;
                for (int id; in >> id;) rows[index].push_back(id);
            }
        } else {
            std::printf("%s\n", line.c_str());
            double value;
            if (!first.empty() && first[0] != '#' && (in >> value)) t.figures[first] = value;
        }
    });
    return t;
}

void compare_with_torch(const SearchRun& run, const TorchFigures& t, size_t n) {
    const auto ms = t.figures.find("torch_" + run.name + "_ms_per_sentence");
    const auto cpu_ms = t.figures.find("torch_" + run.name + "_cpu_ms_per_sentence");
    const auto ids = t.ids.find(run.name);
    if (ms == t.figures.end() || cpu_ms == t.figures.end() || ids == t.ids.end()) {
        std::printf("# torch gave no %s figures\n", run.name.c_str());
        return;
    }
    // Where the ids agree, both sides scored the same tokens: their log-probabilities differ by float rounding only.
    size_t same = 0;
    double max_diff = 0;
    for (size_t i = 0; i < n; ++i) {
        if (ids->second[i] != run.ids[i]) continue;
        ++same;
        const double diff = std::fabs(t.log_probs.at(run.name)[i] - run.log_probs[i]);
        max_diff = std::isnan(diff) ? diff : std::max(max_diff, diff);
    }
    std::printf("translate_%s_ids_equal_torch %.1f %% (%zu of %zu sentences)\n", run.name.c_str(), 100.0 * same / n,
                same, n);
    std::printf("translate_%s_log_prob_max_diff_torch %.2e nats (sentences with equal ids)\n", run.name.c_str(), max_diff);
    const double attend_ms = run.total_ms / n, torch_ms = ms->second;
    std::printf("translate_%s_vs_torch %.2f x (Attend is faster by %.2fx in wall time: attend %.3f ms, torch %.3f ms "
                "per sentence)\n",
                run.name.c_str(), torch_ms / attend_ms, torch_ms / attend_ms, attend_ms, torch_ms);
    const double attend_cpu_ms = run.cpu_ms / n, torch_cpu_ms = cpu_ms->second;
    std::printf("translate_%s_cpu_vs_torch %.2f x (Attend is faster by %.2fx in CPU time: attend %.3f ms, torch %.3f "
                "ms per sentence)\n",
                run.name.c_str(), torch_cpu_ms / attend_cpu_ms, torch_cpu_ms / attend_cpu_ms, attend_cpu_ms, torch_cpu_ms);
}

void run_bench_translate(const BenchTranslateOptions& o) {
    std::string model_path = o.model;
    if (model_path.empty()) {
        model_path = default_model_path();
        if (!file_exists(model_path))
            throw Error("bench translate: no --model given and the default model '" + model_path + "' does not exist");
    }
    const Translator translator(load_model_or_checkpoint(model_path));
    // The PyTorch peer (tools/torch_translator.py) rebuilds a Transformer from the file; it has no GRU model.
    const Transformer& transformer =
        network_as<TransformerNetwork>(*translator.model().network, "bench translate (" + model_path + ")").model;
    const std::string data_path = default_data_dir() + "/multi30k/test_2016_flickr.en.gz";
    std::vector<std::string> sentences = read_lines(data_path);
    if (sentences.size() > static_cast<size_t>(o.sentences)) sentences.resize(o.sentences);
    if (sentences.empty()) throw Error("bench translate: " + data_path + " has no sentences");
    const size_t n = sentences.size();

    omp_set_num_threads(o.threads);
    const TransformerConfig& c = transformer.config;
    std::printf("# model %s: C %d, heads %d, %d+%d layers, ffn %d, vocab %d/%d, %s weights, %zu parameters\n",
                model_path.c_str(), c.model_dim, c.heads, c.encoder_layers, c.decoder_layers, c.ffn_dim, c.src_vocab,
                c.tgt_vocab, dtype_name(translator.model().weights_dtype), parameter_count(translator.model()));
    std::printf("# decoding reads %s\n", transformer.decode_f16.empty()
                                              ? "float weights"
                                              : "half-float copies of the decoder and output weights (bit-identical "
                                                "logits, half the bytes)");
    std::printf("# %zu sentences of %s, %d OpenMP thread(s); ms per sentence = whole translate() (tokenize, BPE, "
                "encode, search, detokenize); search_ms = encoder + search only\n",
                n, data_path.c_str(), omp_get_max_threads());
    std::vector<SearchRun> runs{run_search(translator, sentences, 1)};
    print_run(runs.back(), n);
    if (o.beam > 1) {
        runs.push_back(run_search(translator, sentences, o.beam));
        print_run(runs.back(), n);
    }
    // Batched greedy: compared with the one-at-a-time greedy search (it must give the same ids) and, below, with
    // the same torch greedy run (torch decodes one sentence at a time).
    const SearchRun batched = run_batched_greedy(translator, sentences, o.batch);
    print_run(batched, n);
    size_t same_as_greedy = 0;
    for (size_t i = 0; i < n; ++i) same_as_greedy += batched.ids[i] == runs.front().ids[i];
    std::printf("translate_%s_ids_equal_greedy %.1f %% (%zu of %zu sentences)\n", batched.name.c_str(),
                100.0 * same_as_greedy / n, same_as_greedy, n);

    if (!o.with_torch) {
        std::printf("# torch comparison skipped: --no-torch\n");
        return;
    }
    if (!torch_available()) return;
    const bool keep_ids = !o.ids_file.empty();
    const std::string ids_path = keep_ids ? o.ids_file
                                          : (std::filesystem::temp_directory_path() /
                                             ("attend-bench-translate-" + std::to_string(getpid()) + ".ids"))
                                                .string();
    write_source_ids(ids_path, translator, sentences);
    TorchFigures torch_figures;
    try {
        torch_figures = run_torch(model_path, ids_path, translator, o, n);
    } catch (...) {
        if (!keep_ids) std::filesystem::remove(ids_path);
        throw;
    }
    if (!keep_ids) std::filesystem::remove(ids_path);
    for (const SearchRun& run : runs) compare_with_torch(run, torch_figures, n);
    const auto torch_greedy = torch_figures.figures.find("torch_greedy_ms_per_sentence");
    const auto torch_greedy_cpu = torch_figures.figures.find("torch_greedy_cpu_ms_per_sentence");
    if (torch_greedy != torch_figures.figures.end() && torch_greedy_cpu != torch_figures.figures.end())
        std::printf("translate_%s_vs_torch_greedy %.2f x wall, %.2f x CPU (Attend batched: %.3f ms, torch one sentence "
                    "at a time: %.3f ms per sentence)\n",
                    batched.name.c_str(), torch_greedy->second / (batched.total_ms / n),
                    torch_greedy_cpu->second / (batched.cpu_ms / n), batched.total_ms / n, torch_greedy->second);
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* cmd = bench_command(app)->add_subcommand(
        "translate", "Translator ms per sentence on Multi30k test2016 (greedy and beam), beside PyTorch eager");
    auto o = std::make_shared<BenchTranslateOptions>();
    cmd->add_option("--model", o->model,
                    "Model file or checkpoint (default: web/models/multi30k-en-de-cased.safetensors when it exists)");
    cmd->add_option("--sentences", o->sentences, "The first N test2016 sentences")->check(at_least(1));
    cmd->add_option("--threads", o->threads, "OpenMP threads (and torch threads)")->check(at_least(1));
    cmd->add_option("--beam", o->beam, "Beam size of the second search (1: greedy only)")->check(at_least(1));
    cmd->add_option("--batch", o->batch, "Sentences per batch of the batched greedy search")
        ->check(at_least(1))->capture_default_str();
    cmd->add_option("--ids-file", o->ids_file,
                    "Write the source ids for tools/torch_translator.py here and keep them (default: a temp file)");
    cmd->add_flag("--no-torch", [o](int64_t) { o->with_torch = false; }, "Do not run tools/torch_translator.py");
    cmd->callback([o] { run_bench_translate(*o); });
});

}  // namespace
}  // namespace attend::cli
