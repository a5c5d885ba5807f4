// `attend bench lm`: training throughput of the seeds' character language models (d2l 8.5-9.4, the presets of
// `attend lm train`): one step is the trainer's own (LmEpochTrainer::step: forward over batch 32 x 35 steps,
// mean cross-entropy, backward, clipping to norm 1, SGD at the preset's lr, the state carried between batches),
// at the preset's sizes on a random corpus over The Time Machine's 28 characters (the speed does not depend on the
// text). Then the same step in PyTorch (bench/torch_lm.py: nn.RNN / nn.GRU / nn.LSTM + nn.Linear, the same sizes,
// loss, clipping and update) on the same thread counts, and the ratio per figure.
// Tokens are the T*B predictions of a batch; the best timed step counts. Beside the wall-clock figure, tokens per
// CPU second of the process (all its threads): on a shared, busy machine the wall clock also counts the time other
// processes hold the cores, the CPU time does not, so with one thread it is the steadier figure of the two (with
// several it measures the work, including what the threads spend waiting for each other).
#include <time.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/option_checks.h"
#include "cli/torch_peer.h"
#include "error.h"
#include "model/dropout.h"
#include "train/lm_training.h"
#include "train/native_gemm.h"

namespace attend::cli {
namespace {

struct BenchLmOptions {
    std::string presets = "rnn-d2l,gru-d2l,lstm-d2l,deep-lstm-d2l,birnn-d2l";
    std::string threads = "1,all";
    int steps = 5;
    int vocab = 28;  // The Time Machine's characters after d2l's cleaning, with <unk>
    bool with_torch = true;
};

std::vector<std::string> split_list(const std::string& text, const char* option) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        if (item.empty()) throw Error(std::string(option) + ": empty entry in '" + text + "'");
        items.push_back(item);
    }
    if (items.empty()) throw Error(std::string(option) + ": the list is empty");
    return items;
}

// "1,all" -> {1, omp_get_num_procs()}, duplicates removed, in the given order.
std::vector<int> thread_counts(const std::string& text) {
    std::vector<int> counts;
    for (const std::string& item : split_list(text, "--threads")) {
        int n = 0;
        if (item == "all") {
            n = omp_get_num_procs();
        } else {
            size_t used = 0;
            try {
                n = std::stoi(item, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != item.size() || n < 1)
                throw Error("--threads: '" + item + "' is neither a thread count >= 1 nor 'all'");
        }
        if (std::find(counts.begin(), counts.end(), n) == counts.end()) counts.push_back(n);
    }
    return counts;
}

std::string figure_name(const std::string& preset, int threads) {
    return preset + "_threads" + std::to_string(threads) + "_tokens_per_s";
}

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct StepTime {
    double wall = 1e30, cpu = 1e30;  // best seconds of a step
};

// Best seconds of one training step of the preset's model on `threads` OpenMP threads.
StepTime time_preset(const LmPreset& preset, int vocab, int steps, int threads) {
    omp_set_num_threads(threads);
    CharLmConfig config = preset.model;
    config.vocab_size = vocab;
    CharLm model(config);
    model.allocate(/*with_grads=*/true);
    model.init_parameters(0);
    LmTrainOptions o = preset.train;
    // Enough batches for the warm-up and the timed steps, whatever offset the iterator draws.
    std::vector<int> corpus(size_t(steps + 2) * o.batch * o.steps + size_t(o.steps) + 1);
    for (size_t i = 0; i < corpus.size(); ++i) corpus[i] = int(uniform_at(7, i) * float(vocab)) % vocab;
    LmEpochTrainer trainer(model, o);
    trainer.begin(corpus, 1);
    trainer.step();  // warm-up: first touch of the buffers, OpenMP's threads
    StepTime best;
    for (int i = 0; i < steps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = process_cpu_seconds();
        trainer.step();
        best.cpu = std::min(best.cpu, process_cpu_seconds() - cpu_start);
        best.wall = std::min(best.wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

void run_bench_lm(const BenchLmOptions& o) {
    use_native_gemm();
    std::vector<const LmPreset*> presets;
    for (const std::string& name : split_list(o.presets, "--presets")) presets.push_back(&lm_preset(name));
    const std::vector<int> threads = thread_counts(o.threads);
    const int max_threads = omp_get_max_threads();
    const std::string note = gemm_kernel_note();
    if (!note.empty()) std::printf("# %s\n", note.c_str());
    std::printf("# character LMs: one training step = forward + cross-entropy + backward + clip 1 + SGD, batch 32 x "
                "35 steps (1120 tokens), vocabulary %d, best of %d steps after one warm-up\n",
                o.vocab, o.steps);
    std::map<std::string, double> attend;  // figure name -> tokens/s, wall and CPU ("_cpu" names)
    for (const LmPreset* p : presets) {
        std::printf("# %s: %s\n", p->name.c_str(), p->description.c_str());
        for (int n : threads) {
            const StepTime t = time_preset(*p, o.vocab, o.steps, n);
            const double tokens = double(p->train.batch) * p->train.steps;
            const std::string name = figure_name(p->name, n);
            attend[name] = tokens / t.wall;
            attend[name + "_cpu"] = tokens / t.cpu;
            std::printf("lm_%s %.1f tokens/s (%.2f ms a step, %d thread%s)\n", name.c_str(), tokens / t.wall,
                        t.wall * 1e3, n, n == 1 ? "" : "s");
            std::printf("lm_%s_cpu %.1f tokens/s (per CPU second: %.2f ms of CPU a step)\n", name.c_str(),
                        tokens / t.cpu, t.cpu * 1e3);
            std::fflush(stdout);
        }
    }
    omp_set_num_threads(max_threads);
    if (!o.with_torch) {
        std::printf("# torch comparison skipped: --no-torch\n");
        return;
    }
    if (!torch_available()) return;
    // One peer run for every figure: "name:kind:hidden:layers:bidirectional:lr" per preset.
    std::string specs, counts;
    for (const LmPreset* p : presets)
        specs += (specs.empty() ? "" : ",") + p->name + ":" + rnn_kind_name(p->model.kind) + ":" +
                 std::to_string(p->model.hidden_size) + ":" + std::to_string(p->model.num_layers) + ":" +
                 (p->model.bidirectional ? "1" : "0") + ":" + std::to_string(p->train.lr);
    for (int n : threads) counts += (counts.empty() ? "" : ",") + std::to_string(n);
    const std::map<std::string, double> torch =
        run_torch_figures("lm", "bench/torch_lm.py",
                          "--presets " + specs + " --threads " + counts + " --steps " + std::to_string(o.steps) +
                              " --vocab " + std::to_string(o.vocab),
                          true);
    for (const LmPreset* p : presets)
        for (int n : threads)
            for (const char* clock : {"", "_cpu"}) {
                const std::string name = figure_name(p->name, n) + clock;
                const auto t = torch.find("torch_lm_" + name);
                if (t == torch.end() || !(t->second > 0)) {
                    std::printf("# torch gave no figure for %s\n", name.c_str());
                    continue;
                }
                const double a = attend[name];
                std::printf("lm_%s_threads%d%s_vs_torch %.2f x (attend %.1f tokens/s, torch %.1f tokens/s)\n",
                            p->name.c_str(), n, clock, a / t->second, a, t->second);
            }
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* cmd = bench_command(app)->add_subcommand(
        "lm", "The character language models' training tokens/s (forward + backward + clip + SGD) beside PyTorch");
    auto o = std::make_shared<BenchLmOptions>();
    cmd->add_option("--presets", o->presets, "Comma-separated `attend lm train` presets")->capture_default_str();
    cmd->add_option("--threads", o->threads, "Comma-separated OpenMP (and torch) thread counts; 'all': every core")
        ->capture_default_str();
    cmd->add_option("--steps", o->steps, "Timed steps after one warm-up (the best counts)")
        ->check(at_least(1))
        ->capture_default_str();
    cmd->add_option("--vocab", o->vocab, "Vocabulary size (one-hot input width)")
        ->check(at_least(2))
        ->capture_default_str();
    cmd->add_flag("--no-torch", [o](int64_t) { o->with_torch = false; }, "Do not run bench/torch_lm.py");
    cmd->callback([o] { run_bench_lm(*o); });
});

}  // namespace
}  // namespace attend::cli
