// `attend train`: train a translator (Transformer or GRU + Bahdanau) from a preset, with flags overriding the preset.
#include "cli/command.h"
#include "train/gemm_precision.h"
#include "train/communicator.h"
#include "train/presets.h"
#include "cli/option_checks.h"
#include "error.h"
#include "model/config_checks.h"
#include "train/trainer.h"
#include "train/train_device.h"
#include "train/trainable_model.h"

#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attend::cli {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};  // the first stop signal received

// Ctrl-C, and SIGTERM (what batch schedulers and `kill` send before they give up waiting): finish the step, save a
// checkpoint and stop, with the status of a process that the signal ended (128 + the signal), so that a script or
// scheduler does not take the run for finished. A second signal stops at once.
extern "C" void on_stop_signal(int signal) {
    if (g_stop.exchange(true)) std::_Exit(128 + signal);
    g_signal.store(signal);
}

// The flags that change a preset's options, each declared once with what it sets: a flag given on the command line
// sets its fields after the preset has filled them, one not given leaves the preset's.
class OptionFlags {
public:
    explicit OptionFlags(CLI::App* cmd) : cmd_(cmd) {}

    template <typename T>
    CLI::Option* add(const std::string& name, std::function<void(TrainOptions&, const T&)> set,
                     const std::string& help) {
        CLI::Option* opt = cmd_->add_option_function<T>(name, [](const T&) {}, help);  // converted and checked here
        flags_.push_back([opt, set](TrainOptions& o) {
            if (opt->count() > 0) set(o, opt->as<T>());
        });
        return opt;
    }
    template <typename T>
    CLI::Option* add(const std::string& name, T TrainOptions::*field, const std::string& help) {
        return add<T>(name, [field](TrainOptions& o, const T& v) { o.*field = v; }, help);
    }
    // A switch: given, it sets what `set` sets (a field to true).
    CLI::Option* add_switch(const std::string& name, std::function<void(TrainOptions&)> set, const std::string& help) {
        CLI::Option* opt = cmd_->add_flag(name, help);
        flags_.push_back([opt, set](TrainOptions& o) {
            if (opt->count() > 0) set(o);
        });
        return opt;
    }
    CLI::Option* add_switch(const std::string& name, bool TrainOptions::*field, const std::string& help) {
        return add_switch(name, [field](TrainOptions& o) { o.*field = true; }, help);
    }

    void apply(TrainOptions& o) const {
        for (const auto& flag : flags_) flag(o);
    }

private:
    CLI::App* cmd_;
    std::vector<std::function<void(TrainOptions&)>> flags_;
};

// What a call names besides the options: the preset the options start from, and whether it continues a run.
struct TrainCall {
    explicit TrainCall(CLI::App* cmd) : flags(cmd) {}
    std::string preset = train_preset_names().front();
    bool resume = false;
    OptionFlags flags;
    CLI::Option* out = nullptr;  // --out, whose default depends on the languages
};

// The flags only bound each number by itself; the model's own rules (heads dividing the dimension, ...) are
// checked here, before any data is read, so a bad combination fails at once.
void validate_model_options(const TrainOptions& o) {
    try {
        training_architecture(o.architecture).check_options(o);
    } catch (const Error& e) {
        throw Error(std::string("train: ") + e.what());
    }
}

// The last line of a run: state.epoch counts the epochs finished (the one in progress is 0-based), and the
// validation figures are this call's, when it validated at all.
std::string train_summary(const TrainResult& r) {
    const TrainingState& s = r.state;
    std::string epochs = "epochs " + std::to_string(s.epoch);
    if (s.batch_in_epoch > 0)
        epochs += " and " + std::to_string(s.batch_in_epoch) + " batches of epoch " + std::to_string(s.epoch + 1);
    char validation[96] = "no validation";
    if (r.validated) std::snprintf(validation, sizeof validation, "val loss %.4f, val BLEU %.2f", r.val_loss, r.val_bleu);
    char line[400];
    std::snprintf(line, sizeof line, "steps %lld, %s, last loss %.4f, %s, %.0f s%s", static_cast<long long>(s.step),
                  epochs.c_str(), r.last_loss, validation, s.elapsed_seconds,
                  r.interrupted ? " (interrupted: continue with --resume)" : "");
    return line;
}

void run_train(const TrainCall& call) {
    TrainOptions o = train_preset(call.preset);
    if (call.resume) {  // the run's own length and cooldown, unless --epochs or --cooldown-epochs says otherwise
        o.epochs = 0;
        o.cooldown_epochs = -1;
    }
    call.flags.apply(o);
    if (call.out->count() == 0)
        o.out_dir = "runs/" + call.preset + "-" + o.corpus.source_lang + "-" + o.corpus.target_lang;
    const TrainDevice device = parse_train_device(o.device);  // the trainer refuses an unusable one before any work
    validate_model_options(o);

    const bool tty = isatty(STDERR_FILENO);
    TrainHooks hooks;
    hooks.stop = &g_stop;
    hooks.message = [tty](const std::string& line) {
        std::fprintf(stderr, tty ? "\r\033[K%s\n" : "%s\n", line.c_str());
    };
    int calls = 0;
    hooks.progress = [tty, &calls](const std::string& line) {
        // A live bar on a terminal; every 50th line otherwise, so logs stay readable.
        if (tty) std::fprintf(stderr, "\r\033[K%s", line.c_str());
        else if (++calls % 50 == 0) std::fprintf(stderr, "%s\n", line.c_str());
    };
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    TrainResult r = train_translator_on(device, o, call.resume, hooks);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (tty) std::fprintf(stderr, "\n");
    // A rank that stopped because another one got the signal stops as that one does.
    if (r.interrupted) exit_status() = 128 + (g_signal.load() != 0 ? g_signal.load() : SIGTERM);
    if (world().rank() != 0) return;  // rank 0 speaks for a data-parallel run
    std::printf("%s\n", train_summary(r).c_str());
    if (!r.best_model.empty()) std::printf("best model: %s\n", r.best_model.c_str());
    if (!r.final_model.empty()) std::printf("final model: %s\n", r.final_model.c_str());
}

CommandRegistrar registrar([](CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "train", [] {
            std::string names;
            for (const std::string& n : train_preset_names()) names += (names.empty() ? "" : ", ") + n;
            return "Train a translator (presets: " + names + "); data-parallel under mpirun";
        }());
    auto call = std::make_shared<TrainCall>(cmd);
    OptionFlags& f = call->flags;
    using O = TrainOptions;
    cmd->add_option("--preset", call->preset, "Preset to start from")->capture_default_str();
    f.add<std::string>("--source", [](O& o, const std::string& v) { o.corpus.source_lang = v; },
                       "Source language: en, de or fr for the built-in data sets; any code (zh, pt-BR) with --train "
                       "(default: the preset's)");
    f.add<std::string>("--target", [](O& o, const std::string& v) { o.corpus.target_lang = v; },
                       "Target language, as --source");
    using Files = std::vector<std::string>;
    f.add<Files>("--train",
                 [](O& o, const Files& v) {
                     o.corpus.dataset = "files";
                     o.corpus.train_sets = v;
                 },
                 "Train on these files instead of a built-in data set, subwords learned on their raw text (any "
                 "language): SOURCE_FILE,TARGET_FILE (aligned lines) or FILE.tsv (source in column 1, target in "
                 "column 2; :columns=2,1 names others), plain or .gz, :weight=W to see a set W times an epoch; "
                 "{data} in a name is the data folder; may be given again");
    f.add<Files>("--valid", [](O& o, const Files& v) { o.corpus.valid_sets = v; },
                 "Validation data, as --train (default: --valid-size source sentences held out of the training data)");
    f.add<Files>("--test", [](O& o, const Files& v) { o.corpus.test_sets = v; },
                 "Test data, as --train: a training pair that shares a sentence with it is dropped (and counted)");
    f.add<int>("--valid-size", [](O& o, int n) { o.corpus.valid_size = n; },
               "Without --valid: source sentences held out for validation, with every pair that has one")
        ->check(at_least(1, 1000000));
    f.add<int>("--split-seed", [](O& o, int n) { o.corpus.split_seed = n; },
               "Without --valid: the seed that chooses the held-out sentences (not the training seed)")
        ->check(at_least(1));
    f.add<std::string>("--subwords", [](O& o, const std::string& v) { o.corpus.subwords = v; },
                       "With --train: SentencePiece unigram or bpe")
        ->check(CLI::IsMember({"unigram", "bpe"}));
    f.add<int>("--vocab-size", [](O& o, int n) { o.corpus.vocab_size = n; },
               "With --train: subword vocabulary size, the 4 specials and 256 byte pieces included")
        ->check(at_least(300, 256000));
    f.add<double>("--character-coverage", [](O& o, double v) { o.corpus.character_coverage = v; },
                  "With --train: the share of characters the subword pieces cover, the rest spelled in bytes "
                  "(default 0.9995 for Chinese, Japanese and other unspaced languages, else 1)")
        ->check(CLI::Range(0.9, 1.0));
    f.add<int>("--max-line-bytes", [](O& o, int n) { o.corpus.max_line_bytes = n; },
               "With --train: a longer line is skipped and counted")
        ->check(at_least(16, 1 << 20));
    call->out = f.add("--out", &O::out_dir, "Run folder: checkpoints, train.jsonl, best.safetensors");
    f.add<std::string>("--data", [](O& o, const std::string& v) { o.corpus.data_dir = v; },
                       "Data folder (default ../shared/data or $ATTEND_DATA)");
    cmd->add_flag("--resume", call->resume, "Continue the newest checkpoint in the run folder");
    f.add_switch("--overwrite", &O::overwrite,
                 "A new run into a folder that holds another run: move that run's checkpoints and log into "
                 "<out>/overwritten-<date>/ first (without it, such a folder is refused)");
    f.add("--start-from", &O::start_from,
          "Start a new run from this model file's parameters, tokenizers and vocabularies (fine-tuning; the options "
          "must give its layers, dimension, heads and ffn size); Adam starts afresh");
    f.add("--epochs", &O::epochs, "Epochs (with --resume: default the run's own)")->check(at_least(1));
    f.add("--max-steps", &O::max_steps, "Stop after this many steps (0: no limit)")->check(at_least(0));
    f.add("--max-tokens", &O::max_tokens, "Tokens per batch, padding included")->check(at_least(1));
    f.add("--lr", &O::lr, "Peak learning rate")->check(positive());
    f.add("--warmup", &O::warmup_steps, "Warmup steps")->check(at_least(0));
    f.add("--cooldown-epochs", &O::cooldown_epochs,
          "Scale the learning rate linearly down to 0 over the last N epochs (0: none; with --resume: default the "
          "run's own)")->check(at_least(0));
    f.add<float>("--dropout", [](O& o, float p) { o.model.dropout = o.rnn.dropout = p; }, "Dropout")->check(fraction());
    f.add<float>("--attention-dropout", [](O& o, float p) { o.model.attention_dropout = p; },
                 "Transformer: dropout on the attention weights (default: --dropout's rate)")->check(fraction());
    f.add("--label-smoothing", &O::label_smoothing, "Label smoothing")->check(fraction());
    f.add("--clip", &O::clip_norm, "Global gradient-norm clipping (0: none)")->check(at_least(0));
    f.add("--seed", &O::seed, "Random seed (data order, initialisation, dropout)")->check(at_least(1));
    f.add<int>("--bpe", [](O& o, int n) { o.corpus.bpe_merges = n; }, "Joint BPE merges (0: word vocabulary)")
        ->check(at_least(0));
    f.add<int>("--layers", [](O& o, int n) { o.model.encoder_layers = o.model.decoder_layers = o.rnn.num_layers = n; },
               "Encoder and decoder layers (GRU layers for bahdanau presets)")->check(at_least(1, kMaxLayers));
    f.add<int>("--encoder-layers", [](O& o, int n) { o.model.encoder_layers = n; },
               "Transformer: encoder layers (after --layers)")->check(at_least(1, kMaxLayers));
    f.add<int>("--decoder-layers", [](O& o, int n) { o.model.decoder_layers = n; },
               "Transformer: decoder layers (after --layers)")->check(at_least(1, kMaxLayers));
    f.add<int>("--dim", [](O& o, int n) { o.model.model_dim = o.rnn.num_hiddens = n; },
               "Model dimension C (GRU hidden size for bahdanau presets)")->check(at_least(1, kMaxModelWidth));
    f.add<int>("--embed", [](O& o, int n) { o.rnn.embed_size = n; }, "Embedding size (bahdanau presets)")
        ->check(at_least(1, kMaxModelWidth));
    f.add_switch("--bidirectional", [](O& o) { o.rnn.bidirectional = true; },
                 "Bahdanau presets: a bidirectional encoder GRU (keys and values 2H wide; the decoder starts from "
                 "tanh(W [forward; backward final state]) per layer, as Bahdanau et al. 2015)");
    f.add("--batch-size", &O::batch_size, "Sentences per batch (presets with num_steps: the d2l ones)")
        ->check(at_least(1));
    f.add<int>("--heads", [](O& o, int n) { o.model.heads = n; }, "Attention heads")->check(at_least(1, kMaxHeads));
    f.add<int>("--ffn", [](O& o, int n) { o.model.ffn_dim = n; }, "Feed-forward dimension")
        ->check(at_least(1, kMaxFfnDim));
    f.add<Files>("--train-target", [](O& o, const Files& v) { o.corpus.train_target_files = v; },
                 "Training targets from this file instead of the data set's: raw text, a line for each training "
                 "pair (a teacher's translations: sequence-level knowledge distillation); given again, each file's "
                 "pairs are added (several teachers)");
    f.add<Files>("--train-source", [](O& o, const Files& v) { o.corpus.train_source_files = v; },
                 "Training sources from this file, each with the data set's target, added to the training pairs: "
                 "raw text, a line for each training pair (a reverse model's translations of the targets: "
                 "back-translation); may be given again");
    f.add_switch("--with-references", [](O& o) { o.corpus.with_references = true; },
                 "With --train-target: train on the data set's own pairs as well, each source with its reference "
                 "besides each file's target");
    f.add<int>("--max-sentences", [](O& o, int n) { o.corpus.max_train_sentences = n; },
               "Use only the first N training pairs (0: all)")->check(at_least(0));
    f.add("--checkpoint-every", &O::checkpoint_every, "Steps between checkpoints")->check(at_least(1));
    f.add("--keep", &O::keep_checkpoints, "Checkpoints to keep")->check(at_least(1));
    f.add("--average-last", &O::average_last, "At the end, average the last N checkpoints")->check(at_least(0));
    f.add<std::string>("--keep-model", [](O& o, const std::string& v) { o.keep_model = v; },
                       "The model the run hands over: best (best.safetensors, the best validation BLEU) or final "
                       "(final.safetensors, the weights at the end; the seeds' presets)")
        ->check(CLI::IsMember({"best", "final"}));
    f.add("--val-bleu-sentences", &O::val_bleu_sentences, "Validation sentences for BLEU (0: all)")
        ->check(at_least(0));
    f.add("--validate-every", &O::validate_every, "Epochs between validations (the last epoch always)")
        ->check(at_least(1));
    f.add("--log-every", &O::log_every, "Steps between train.jsonl lines")->check(at_least(1));
    f.add("--threads", &O::threads, "CPU threads (default: all)")->check(at_least(1));
    f.add("--device", &O::device, "cpu or cuda (an NVIDIA GPU; `attend devices` lists them)")
        ->default_str(TrainOptions().device);
    f.add("--precision", &O::precision,
          "cuda: the GEMMs' inputs in fp32, tf32 or bf16 (tensor cores; sums and weights stay fp32)")
        ->check(CLI::IsMember(gemm_precision_names()))
        ->default_str(TrainOptions().precision);
    cmd->callback([call] { run_train(*call); });
});

}  // namespace
}  // namespace attend::cli
