// `attend lm train|sample|eval`: the seeds' character language models on The Time Machine (d2l 8.5-9.4).
#include "cli/command.h"
#include "cli/option_checks.h"
#include "data/data_dir.h"
#include "data/text_file.h"
#include "error.h"
#include "lm/char_corpus.h"
#include "lm/char_lm.h"
#include "lm/lm_model_file.h"
#include "train/checkpoint.h"
#include "train/lm_trainer.h"
#include "train/trainer.h"

#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace attend::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::atomic<bool> g_stop{false};
extern "C" void on_lm_stop(int signal) {
    if (g_stop.exchange(true)) std::_Exit(128 + signal);
}

struct LmTrainFlags {
    std::string preset, data, out;
    int chars = -1;      // < 0: the preset's; 0: all
    int epochs = 0;      // 0: the preset's
    float lr = 0.0f;     // 0: the preset's
    double held_out = 0.0;
    uint64_t seed = 1;
    bool random_iter = false, overwrite = false, resume = false;
    int save_every = 50;
    int log_every = 0;  // 0: no step lines
};

LanguageModel load_lm(const std::string& path) {
    LanguageModel m = load_language_model(SafeTensors::from_file(path));
    return m;
}

std::string sample_text(LanguageModel& m, const std::string& prefix, int length) {
    LmGenerateOptions o;
    o.length = length;
    LmGeneration g = lm_generate(*m.network, m.encode_prefix(prefix), o);
    return prefix + m.decode(g.ids);
}

// Where a run folder's training stopped: its model (saved at the end of an epoch, in F32), the epochs it holds, and
// the training time they took. An epoch's batches and its starting state depend only on the seed and the epoch, and
// SGD keeps no state, so training on from the saved model is the run that was not stopped, bit for bit. The run's
// settings must be those asked for now (they decide the batches); train.jsonl keeps its lines up to the saved epoch
// (those of epochs trained after the last save, which are trained again, are dropped).
struct ResumePoint {
    int epochs = 0;
    double elapsed_s = 0;
};

ResumePoint resume_point(const std::string& out, const json& expected_card, LanguageModel& m) {
    const fs::path model_path = fs::path(out) / "model.safetensors";
    if (!fs::exists(model_path))
        throw Error(out + ": no model.safetensors to resume from (a run saves one every --save-every epochs)");
    LanguageModel saved = load_lm(model_path.string());
    const json& card = saved.card;
    if (saved.weights_dtype != DType::F32)
        throw Error(model_path.string() + ": weights are " + dtype_name(saved.weights_dtype) +
                    ", not the F32 a run saves: training cannot go on from an exported model");
    for (const char* key : {"preset", "data", "train_chars", "held_out_chars", "lr", "batch", "steps", "iterator", "seed"}) {
        const json want = expected_card.contains(key) ? expected_card[key] : json(0);
        const json have = card.contains(key) ? card[key] : json(0);
        if (want != have)
            throw Error(model_path.string() + ": the run was trained with " + key + " " + have.dump() + ", asked now " +
                        want.dump() + " (pass the run's own settings to resume it)");
    }
    if (saved.vocab.id_to_token() != m.vocab.id_to_token())
        throw Error(model_path.string() + ": the run's vocabulary is not the one this text gives");
    if (json(saved.network->config()) != json(m.network->config()))
        throw Error(model_path.string() + ": the run's model config differs from the preset's");
    const int epochs = card.value("epochs", 0);
    if (epochs < 1) throw Error(model_path.string() + ": the card holds no epoch count");
    std::copy_n(saved.network->parameters().values(), saved.network->parameters().size(),
                m.network->parameters().values());
    m.card = card;

    // train.jsonl up to the saved epoch, replaced atomically.
    const fs::path log_path = fs::path(out) / "train.jsonl";
    std::string kept;
    if (std::ifstream in(log_path); in) {
        for (std::string line; std::getline(in, line);) {
            const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
            if (!j.is_discarded() && j.contains("epoch") && j["epoch"].is_number_integer() && j["epoch"].get<int>() > epochs)
                continue;
            kept += line + '\n';
        }
    }
    write_file_atomically(log_path.string(), std::vector<uint8_t>(kept.begin(), kept.end()));
    return {epochs, card.value("elapsed_s", 0.0)};
}

void run_train(const LmTrainFlags& f) {
    const LmPreset& preset = lm_preset(f.preset);
    const std::string data = f.data.empty() ? default_data_dir() + "/timemachine/timemachine.txt" : f.data;
    const std::string out = f.out.empty() ? "runs/lm-" + preset.name : f.out;
    LmText text = lm_text(read_file_bytes(data), 0);  // the vocabulary: the whole book's
    LanguageModel m;
    m.vocab = std::move(text.vocab);
    std::vector<int> book = std::move(text.ids);
    std::vector<int> held;
    if (f.held_out > 0) {
        const size_t split = book.size() - size_t(std::llround(f.held_out * double(book.size())));
        held.assign(book.begin() + long(split), book.end());
        book.resize(split);
        if (held.size() < 2) throw Error("--held-out " + std::to_string(f.held_out) + " holds out fewer than 2 characters");
    }
    const int chars = f.chars >= 0 ? f.chars : preset.max_tokens;
    if (chars > 0 && size_t(chars) < book.size()) book.resize(size_t(chars));
    LmTrainOptions o = preset.train;
    if (f.epochs > 0) o.epochs = f.epochs;
    if (f.lr > 0) o.lr = f.lr;
    o.random_iter = f.random_iter;
    o.seed = f.seed;

    CharLmConfig config = preset.model;
    config.vocab_size = int(m.vocab.size());
    m.network = std::make_unique<CharLm>(config);
    m.network->allocate(/*with_grads=*/true);
    json card = {{"preset", preset.name}, {"description", preset.description}, {"data", fs::path(data).filename().string()},
                 {"train_chars", book.size()}, {"lr", o.lr}, {"batch", o.batch}, {"steps", o.steps},
                 {"iterator", o.random_iter ? "random" : "sequential"}, {"seed", f.seed}};
    if (!held.empty()) card["held_out_chars"] = held.size();
    int done = 0;
    double elapsed = 0;
    std::unique_ptr<RunFolderLock> lock;
    if (f.resume) {
        if (!fs::exists(fs::path(out) / "model.safetensors"))
            throw Error(out + ": no model.safetensors to resume from (a run saves one every --save-every epochs)");
        lock = std::make_unique<RunFolderLock>(out);
        const ResumePoint at = resume_point(out, card, m);
        done = at.epochs;
        elapsed = at.elapsed_s;
        if (done >= o.epochs) {
            std::printf("%s: already trained %d of %d epochs; nothing to do (--epochs N trains on to N)\n", out.c_str(),
                        done, o.epochs);
            return;
        }
    } else {
        if ((fs::exists(fs::path(out) / "train.jsonl") || fs::exists(fs::path(out) / "model.safetensors")) && !f.overwrite)
            throw Error(out + ": holds a run (train.jsonl or model.safetensors); pick another --out, pass --resume to "
                              "train it on, or --overwrite to replace it");
        fs::create_directories(out);
        lock = std::make_unique<RunFolderLock>(out);
        if (f.overwrite) {
            fs::remove(fs::path(out) / "train.jsonl");
            fs::remove(fs::path(out) / "model.safetensors");
        }
        m.network->init_parameters(f.seed);
    }
    std::ofstream log((fs::path(out) / "train.jsonl").string(), std::ios::app);
    if (!log) throw Error("cannot write " + out + "/train.jsonl");
    // The same rule as a translator's training: a step this small runs faster on one thread than on two.
    const int threads = training_threads(int64_t(m.network->parameters().size()), int64_t(o.batch) * o.steps,
                                         omp_get_max_threads());
    omp_set_num_threads(threads);
    const bool tty = isatty(STDERR_FILENO);
    std::fprintf(stderr, "%s: %s; %zu training characters of %s, vocabulary %zu%s; %d epochs, lr %g, batch %d x %d steps\n",
                 preset.name.c_str(), preset.description.c_str(), book.size(), data.c_str(), m.vocab.size(),
                 held.empty() ? "" : (", " + std::to_string(held.size()) + " held out").c_str(), o.epochs, o.lr,
                 o.batch, o.steps);
    log << json{{"event", f.resume ? "resume" : "start"}, {"preset", preset.name}, {"config", json(config)},
                {"data", data}, {"train_chars", book.size()}, {"held_out_chars", held.size()}, {"epochs", o.epochs},
                {"lr", o.lr}, {"batch", o.batch}, {"steps", o.steps}, {"random_iter", o.random_iter}, {"seed", f.seed},
                {"from_epoch", done}}
                   .dump()
        << '\n' << std::flush;
    auto save = [&](int epochs_done, double ppl) {
        card["epochs"] = epochs_done;
        card["train_perplexity"] = ppl;
        card["elapsed_s"] = elapsed;
        m.card = card;
        write_file_atomically((fs::path(out) / "model.safetensors").string(), save_language_model(m, DType::F32));
    };
    std::signal(SIGINT, on_lm_stop);
    std::signal(SIGTERM, on_lm_stop);
    double ppl = m.card.value("train_perplexity", 0.0);
    int64_t step = 0;
    for (int e = done + 1; e <= o.epochs && !g_stop.load(); ++e) {
        const LmEpoch r = lm_train_epoch(*m.network, book, o, e, [&](const LmBatchResult& b) {
            if (f.log_every > 0 && ++step % f.log_every == 0)
                log << json{{"event", "step"}, {"step", step}, {"epoch", e}, {"loss", b.loss},
                            {"grad_norm", b.grad_norm}}.dump() << '\n';
        });
        elapsed += r.seconds;
        ppl = r.perplexity;
        done = e;
        json line = {{"event", "epoch"}, {"epoch", e}, {"perplexity", r.perplexity}, {"tokens", r.tokens},
                     {"tokens_per_s", r.tokens / std::max(1e-9, r.seconds)}, {"grad_norm", r.grad_norm},
                     {"elapsed_s", elapsed}};
        const bool last = e == o.epochs;
        if (!held.empty() && (last || e % f.save_every == 0)) {
            line["held_out_perplexity"] = lm_perplexity(*m.network, held, o.steps);
            if (config.bidirectional) line["held_out_perplexity_left_to_right"] = lm_perplexity(*m.network, held, 1);
        }
        log << line.dump() << '\n' << std::flush;
        const int eta = int(r.seconds * (o.epochs - e));
        char progress[256];
        std::snprintf(progress, sizeof progress, "epoch %d/%d perplexity %.3f%s %.0f tok/s ETA %dm%ds", e, o.epochs,
                      r.perplexity,
                      line.contains("held_out_perplexity")
                          ? (" held-out " + std::to_string(line["held_out_perplexity"].get<double>()).substr(0, 6)).c_str()
                          : "",
                      r.tokens / std::max(1e-9, r.seconds), eta / 60, eta % 60);
        if (tty) std::fprintf(stderr, "\r\033[K%s", progress);
        else if (e % 10 == 0 || last || e == 1) std::fprintf(stderr, "%s\n", progress);
        if (e % f.save_every == 0 || last) save(e, ppl);
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (tty) std::fprintf(stderr, "\n");
    if (!held.empty()) {
        card["held_out_perplexity"] = lm_perplexity(*m.network, held, o.steps);
        if (config.bidirectional) card["held_out_perplexity_left_to_right"] = lm_perplexity(*m.network, held, 1);
    }
    card["sample"] = sample_text(m, "time traveller", 50);
    save(done, ppl);
    log << json{{"event", "end"}, {"epochs", done}, {"perplexity", ppl}, {"elapsed_s", elapsed},
                {"sample_time_traveller", card["sample"]},
                {"sample_traveller", sample_text(m, "traveller", 50)}}
               .dump()
        << '\n' << std::flush;
    std::printf("perplexity %.3f after %d epochs, %.0f tokens/s\n", ppl, done,
                double(done) * double(book.size()) / std::max(1e-9, elapsed));
    if (card.contains("held_out_perplexity"))
        std::printf("held-out perplexity %.3f (last %zu characters, read in windows of %d)\n",
                    card["held_out_perplexity"].get<double>(), held.size(), o.steps);
    if (card.contains("held_out_perplexity_left_to_right"))
        std::printf("held-out perplexity read left to right, one character at a time (as it generates): %.3f\n",
                    card["held_out_perplexity_left_to_right"].get<double>());
    std::printf("%s\n%s\n", card["sample"].get<std::string>().c_str(), sample_text(m, "traveller", 50).c_str());
    std::printf("model: %s/model.safetensors\n", out.c_str());
    if (g_stop.load()) exit_status() = 130;
}

struct LmSampleFlags {
    std::string model, prefix = "time traveller";
    int length = 50, top_k = 0;
    float temperature = 0.0f;
    uint64_t seed = 0;
    bool distribution = false;
};

void run_sample(const LmSampleFlags& f) {
    LanguageModel m = load_lm(f.model);
    LmGenerateOptions o;
    o.length = f.length;
    o.temperature = f.temperature;
    o.top_k = f.top_k;
    o.seed = f.seed;
    LmGeneration g = lm_generate(*m.network, m.encode_prefix(f.prefix), o);
    if (!f.distribution) {
        std::printf("%s%s\n", f.prefix.c_str(), m.decode(g.ids).c_str());
        return;
    }
    json steps = json::array();
    for (size_t i = 0; i < g.ids.size(); ++i)
        steps.push_back({{"token", m.vocab.token(g.ids[i])}, {"distribution", g.distributions[i]}});
    std::printf("%s\n", json{{"text", f.prefix + m.decode(g.ids)}, {"vocab", m.vocab.id_to_token()}, {"steps", steps}}
                            .dump()
                            .c_str());
}

// A bidirectional model reads each window in both directions, so its perplexity over windows is not one of
// prediction: it is also given reading one character at a time, as it generates.
void run_eval(const std::string& model, const std::string& text_path, int steps) {
    LanguageModel m = load_lm(model);
    const std::vector<int> ids = m.encode(read_file_bytes(text_path));
    if (ids.size() < 2) throw Error(text_path + ": fewer than 2 characters after cleaning (nothing to predict)");
    std::printf("perplexity %.4f over %zu characters (windows of %d, state carried)\n",
                lm_perplexity(*m.network, ids, steps), ids.size() - 1, steps);
    if (m.network->config().bidirectional)
        std::printf("perplexity %.4f read left to right one character at a time (as it generates)\n",
                    lm_perplexity(*m.network, ids, 1));
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* lm = app.add_subcommand("lm", "Character language models (the seeds' RNN, GRU, LSTM on The Time Machine)");
    lm->require_subcommand(1);

    std::string names;
    for (const LmPreset& p : lm_presets()) names += (names.empty() ? "" : ", ") + p.name;
    CLI::App* train = lm->add_subcommand("train", "Train a character language model (presets: " + names + ")");
    auto tf = std::make_shared<LmTrainFlags>();
    train->add_option("--preset", tf->preset, "Preset: " + names)->required();
    train->add_option("--data", tf->data, "Text file (default: <data>/timemachine/timemachine.txt)");
    train->add_option("--chars", tf->chars, "Train on the first N characters (0: all; default: the preset's 10000)")
        ->check(at_least(0));
    train->add_option("--epochs", tf->epochs, "Epochs (default: the preset's 500)")->check(at_least(1));
    train->add_option("--lr", tf->lr, "SGD learning rate (default: the preset's)")->check(positive());
    train->add_option("--held-out", tf->held_out,
                      "Fraction of the whole text, at its end, held out and scored (perplexity); trained on the rest")
        ->check(fraction());
    train->add_option("--seed", tf->seed, "Seed of the initial weights and the iterators' offsets")->capture_default_str();
    train->add_flag("--random-iter", tf->random_iter, "d2l's random sampling instead of sequential partitioning");
    train->add_option("--save-every", tf->save_every, "Epochs between saves (and held-out scores)")->check(at_least(1));
    train->add_option("--log-every", tf->log_every, "Log each Nth batch's loss to train.jsonl (0: epochs only)")
        ->check(at_least(0));
    train->add_option("--out", tf->out, "Run folder (default: runs/lm-<preset>): train.jsonl, model.safetensors");
    train->add_flag("--overwrite", tf->overwrite, "Replace the run in --out");
    train->add_flag("--resume", tf->resume,
                    "Train the run in --out on from its last save (same settings; bit for bit the run not stopped)")
        ->excludes("--overwrite");
    train->callback([tf] { run_train(*tf); });

    CLI::App* sample = lm->add_subcommand("sample", "Continue a prefix (greedy like d2l's predict_ch8, or sampled)");
    auto sf = std::make_shared<LmSampleFlags>();
    sample->add_option("-m,--model", sf->model, "Language model file")->required();
    sample->add_option("--prefix", sf->prefix, "Prefix")->capture_default_str();
    sample->add_option("--length", sf->length, "Characters to generate")->check(at_least(0))->capture_default_str();
    sample->add_option("--temperature", sf->temperature, "0: greedy; else sample softmax(logits / T)")
        ->check(at_least(0));
    sample->add_option("--top-k", sf->top_k, "Sample among the K most likely (0: all)")->check(at_least(0));
    sample->add_option("--seed", sf->seed, "Seed of the draws");
    sample->add_flag("--distribution", sf->distribution, "JSON: each step's next-character distribution");
    sample->callback([sf] { run_sample(*sf); });

    CLI::App* eval = lm->add_subcommand("eval", "Perplexity of a text file (cleaned as d2l does)");
    auto model = std::make_shared<std::string>(), text = std::make_shared<std::string>();
    auto steps = std::make_shared<int>(35);
    eval->add_option("-m,--model", *model, "Language model file")->required();
    eval->add_option("--text", *text, "Text file")->required();
    eval->add_option("--steps", *steps, "Window length (d2l's num_steps)")->check(at_least(1))->capture_default_str();
    eval->callback([model, text, steps] { run_eval(*model, *text, *steps); });
});

}  // namespace
}  // namespace attend::cli
