// `attend train`: train a translator (Transformer or GRU + Bahdanau) from a preset, with flags overriding the preset.
#include "cli/command.h"
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

namespace attend::cli {
namespace {

std::atomic<bool> g_stop{false};

// Ctrl-C, and SIGTERM (what batch schedulers and `kill` send before they give up waiting): finish the step, save a
// checkpoint and stop. A second signal stops at once.
extern "C" void on_stop_signal(int signal) {
    if (g_stop.exchange(true)) std::_Exit(128 + signal);
}

struct TrainFlags {
    std::string preset = "transformer-tiny";
    std::string out_dir, data_dir, source, target;  // languages: the preset's unless given
    std::string device = "cpu";
    bool resume = false;
    int epochs = 0, max_tokens = 0, warmup = -1, checkpoint_every = 0, keep = -1, log_every = 0, threads = 0;
    int bpe = -1, layers = 0, dim = 0, heads = 0, ffn = 0, val_bleu_sentences = -1, average_last = -1, max_sentences = -1;
    int embed = 0, batch_size = 0, validate_every = 0, cooldown_epochs = -1;
    int64_t max_steps = -1;
    double lr = 0, dropout = -1, label_smoothing = -1, clip = -1;
    uint64_t seed = 0;
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

void run_train(const TrainFlags& f) {
    const TrainDevice device = parse_train_device(f.device);  // the trainer refuses an unusable one before any work
    TrainOptions o = train_preset(f.preset);
    if (!f.source.empty()) o.corpus.source_lang = f.source;
    if (!f.target.empty()) o.corpus.target_lang = f.target;
    o.out_dir = f.out_dir.empty() ? "runs/" + f.preset + "-" + o.corpus.source_lang + "-" + o.corpus.target_lang : f.out_dir;
    if (!f.data_dir.empty()) o.corpus.data_dir = f.data_dir;
    if (f.epochs > 0) o.epochs = f.epochs;
    if (f.max_steps >= 0) o.max_steps = f.max_steps;
    if (f.max_tokens > 0) o.max_tokens = f.max_tokens;
    if (f.warmup >= 0) o.warmup_steps = f.warmup;
    // Not given: none for a new run; a resumed run keeps its own.
    o.cooldown_epochs = f.cooldown_epochs >= 0 ? f.cooldown_epochs : (f.resume ? -1 : o.cooldown_epochs);
    if (f.checkpoint_every > 0) o.checkpoint_every = f.checkpoint_every;
    if (f.keep >= 0) o.keep_checkpoints = f.keep;
    if (f.log_every > 0) o.log_every = f.log_every;
    if (f.threads > 0) o.threads = f.threads;
    if (f.bpe >= 0) o.corpus.bpe_merges = f.bpe;
    if (f.layers > 0) o.model.encoder_layers = o.model.decoder_layers = o.rnn.num_layers = f.layers;
    if (f.dim > 0) o.model.model_dim = o.rnn.num_hiddens = f.dim;
    if (f.embed > 0) o.rnn.embed_size = f.embed;
    if (f.batch_size > 0) o.batch_size = f.batch_size;
    if (f.validate_every > 0) o.validate_every = f.validate_every;
    if (f.heads > 0) o.model.heads = f.heads;
    if (f.ffn > 0) o.model.ffn_dim = f.ffn;
    if (f.val_bleu_sentences >= 0) o.val_bleu_sentences = f.val_bleu_sentences;
    if (f.average_last >= 0) o.average_last = f.average_last;
    if (f.max_sentences >= 0) o.corpus.max_train_sentences = f.max_sentences;
    if (f.lr > 0) o.lr = static_cast<float>(f.lr);
    if (f.dropout >= 0) o.model.dropout = o.rnn.dropout = static_cast<float>(f.dropout);
    if (f.label_smoothing >= 0) o.label_smoothing = static_cast<float>(f.label_smoothing);
    if (f.clip >= 0) o.clip_norm = static_cast<float>(f.clip);
    if (f.seed > 0) o.seed = f.seed;
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
    TrainResult r = train_translator_on(device, o, f.resume, hooks);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (tty) std::fprintf(stderr, "\n");
    if (world().rank() != 0) return;  // rank 0 speaks for a data-parallel run
    std::printf("steps %lld, epochs %d, last loss %.4f, val loss %.4f, val BLEU %.2f, %.0f s%s\n",
                static_cast<long long>(r.state.step), r.state.epoch, r.last_loss, r.val_loss, r.val_bleu,
                r.state.elapsed_seconds, r.interrupted ? " (interrupted: continue with --resume)" : "");
    if (!r.best_model.empty()) std::printf("best model: %s\n", r.best_model.c_str());
}

CommandRegistrar registrar([](CLI::App& app) {
    auto flags = std::make_shared<TrainFlags>();
    CLI::App* cmd = app.add_subcommand(
        "train", [] {
            std::string names;
            for (const std::string& n : train_preset_names()) names += (names.empty() ? "" : ", ") + n;
            return "Train a translator (presets: " + names + "); data-parallel under mpirun";
        }());
    cmd->add_option("--preset", flags->preset, "Preset to start from")->capture_default_str();
    cmd->add_option("--source", flags->source, "Source language (en, de, fr; default: the preset's)");
    cmd->add_option("--target", flags->target, "Target language (en, de, fr; default: the preset's)");
    cmd->add_option("--out", flags->out_dir, "Run folder: checkpoints, train.jsonl, best.safetensors");
    cmd->add_option("--data", flags->data_dir, "Data folder (default ../shared/data or $ATTEND_DATA)");
    cmd->add_flag("--resume", flags->resume, "Continue the newest checkpoint in the run folder");
    cmd->add_option("--epochs", flags->epochs, "Epochs")->check(at_least(1));
    cmd->add_option("--max-steps", flags->max_steps, "Stop after this many steps (0: no limit)")->check(at_least(0));
    cmd->add_option("--max-tokens", flags->max_tokens, "Tokens per batch, padding included")->check(at_least(1));
    cmd->add_option("--lr", flags->lr, "Peak learning rate")->check(positive());
    cmd->add_option("--warmup", flags->warmup, "Warmup steps")->check(at_least(0));
    cmd->add_option("--cooldown-epochs", flags->cooldown_epochs,
                    "Scale the learning rate linearly down to 0 over the last N epochs (0: none; with --resume: "
                    "default the run's own)")->check(at_least(0));
    cmd->add_option("--dropout", flags->dropout, "Dropout")->check(fraction());
    cmd->add_option("--label-smoothing", flags->label_smoothing, "Label smoothing")->check(fraction());
    cmd->add_option("--clip", flags->clip, "Global gradient-norm clipping (0: none)")->check(at_least(0));
    cmd->add_option("--seed", flags->seed, "Random seed (data order, initialisation, dropout)")->check(at_least(1));
    cmd->add_option("--bpe", flags->bpe, "Joint BPE merges (0: word vocabulary)")->check(at_least(0));
    cmd->add_option("--layers", flags->layers, "Encoder and decoder layers (GRU layers for bahdanau presets)")
        ->check(at_least(1, kMaxLayers));
    cmd->add_option("--dim", flags->dim, "Model dimension C (GRU hidden size for bahdanau presets)")
        ->check(at_least(1, kMaxModelWidth));
    cmd->add_option("--embed", flags->embed, "Embedding size (bahdanau presets)")->check(at_least(1, kMaxModelWidth));
    cmd->add_option("--batch-size", flags->batch_size, "Sentences per batch (presets with num_steps: the d2l ones)")
        ->check(at_least(1));
    cmd->add_option("--heads", flags->heads, "Attention heads")->check(at_least(1, kMaxHeads));
    cmd->add_option("--ffn", flags->ffn, "Feed-forward dimension")->check(at_least(1, kMaxFfnDim));
    cmd->add_option("--max-sentences", flags->max_sentences, "Use only the first N training pairs (0: all)")
        ->check(at_least(0));
    cmd->add_option("--checkpoint-every", flags->checkpoint_every, "Steps between checkpoints")->check(at_least(1));
    cmd->add_option("--keep", flags->keep, "Checkpoints to keep")->check(at_least(1));
    cmd->add_option("--average-last", flags->average_last, "At the end, average the last N checkpoints")
        ->check(at_least(0));
    cmd->add_option("--val-bleu-sentences", flags->val_bleu_sentences, "Validation sentences for BLEU (0: all)")
        ->check(at_least(0));
    cmd->add_option("--validate-every", flags->validate_every, "Epochs between validations (the last epoch always)")
        ->check(at_least(1));
    cmd->add_option("--log-every", flags->log_every, "Steps between train.jsonl lines")->check(at_least(1));
    cmd->add_option("--threads", flags->threads, "CPU threads (default: all)")->check(at_least(1));
    cmd->add_option("--device", flags->device, "cpu or cuda (an NVIDIA GPU; `attend devices` lists them)")
        ->capture_default_str();
    cmd->callback([flags] { run_train(*flags); });
});

}  // namespace
}  // namespace attend::cli
