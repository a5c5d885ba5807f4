// `attend train` for translators, one loop for both architectures (train/trainable_model.h): the Transformer and
// the GRU encoder + Bahdanau-attention GRU decoder. Two data layouts: length-bucketed token batches (Multi30K) or
// the seeds' fixed num_steps batches of batch_size sentences (Tatoeba); two losses: label-smoothed cross entropy
// averaged per target token, or the seeds' MaskedSoftmaxCELoss summed over the batch. Adam with warmup +
// inverse-square-root decay (or a constant rate), gradient-norm clipping, atomic checkpoints every N steps (last
// K kept), exact resume (same batches, same dropout masks: both derive from the seed and the step; from the newest
// checkpoint that loads, with the log cut back to it so that each step is logged once), Ctrl-C saves and stops, a loss that turns NaN/inf stops the run naming the step, validation loss and BLEU with the best
// model kept, a JSON-lines log.
//
// The presets these options start from: train/presets.h.
#pragma once
#include "model/bahdanau_seq2seq.h"
#include "model/transformer_config.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "train/presets.h"
#include "train/translation_corpus.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attend {

class Communicator;  // train/communicator.h

// transformer-tiny's model: 4+4 layers, C 128, 4 heads, ffn 256, tied embeddings (train/presets.h).
inline TransformerConfig tiny_transformer_config() {
    TransformerConfig c;
    c.model_dim = 128;
    c.heads = 4;
    c.encoder_layers = c.decoder_layers = 4;
    c.ffn_dim = 256;
    c.dropout = 0.2f;
    c.tie_embeddings = true;
    c.max_len = 256;
    return c;
}

// The defaults are the default preset's, transformer-tiny, whose recipe transformer-tiny-cased shares; the other
// presets change what differs (transformer-tiny-cased-wu: the recipe of the shipped en->de and en->fr models).
struct TrainOptions {
    std::string preset;
    CorpusOptions corpus;
    std::string architecture = "transformer";  // or "bahdanau"
    TransformerConfig model = tiny_transformer_config();  // architecture "transformer" (vocabulary sizes: the corpus)
    BahdanauConfig rnn;  // architecture "bahdanau", the seeds' sizes (vocabularies, num_steps, pad from the run)
    // Learning rate: peak `lr` after `warmup_steps` of linear warmup, then lr * sqrt(warmup / step); warmup_steps 0:
    // a constant lr (the seeds).
    float lr = 1e-3f;
    int warmup_steps = 500;
    // The last cooldown_epochs epochs scale that rate linearly down to 0 at the end of the run (0: no cooldown).
    // A resuming call may set it (a long run can get its cooldown when it is resumed); -1 keeps the run's own.
    // 0 here although transformer-tiny uses 25: saved options without the key mean a run without a cooldown.
    int cooldown_epochs = 0;
    float beta1 = 0.9f, beta2 = 0.98f, adam_eps = 1e-9f, weight_decay = 0.0f;
    float label_smoothing = 0.1f;
    float clip_norm = 0.0f;        // 0: no clipping
    int max_tokens = 4096;         // per batch, padding included (num_steps 0)
    int num_steps = 0;             // > 0: the seeds' batches: batch_size sentences truncated / padded to num_steps
    int batch_size = 64;           // sentences per batch when num_steps > 0
    std::string loss = "cross_entropy";  // or "masked_softmax_ce": the seeds' MaskedSoftmaxCELoss, l.sum() per batch
    std::string init = "scaled";         // or "seeds" (train/trainable_model.h)
    // A new run may start from a model file's parameters, tokenizers and vocabularies instead of an initialisation
    // (fine-tuning: e.g. on the references alone after training on synthetic data); the options must describe the
    // same model shape. Adam starts afresh. Saved with the run's options as a record; a resume ignores it.
    std::string start_from;
    int validate_every = 1;        // epochs between validations (the last epoch always validates)
    // A resuming call may set it (a run can be made longer or shorter); 0 keeps the run's own.
    int epochs = 125;
    int64_t max_steps = 0;         // 0: no limit
    uint64_t seed = 1;
    std::string out_dir = "runs/model";
    int checkpoint_every = 1000;   // steps; also at every epoch end
    int keep_checkpoints = 10;
    int log_every = 50;
    int val_bleu_sentences = 0;    // 0: the whole validation set
    int average_last = 10;         // at the end, also export the mean of the last N checkpoints (0, 1: none)
    // The model a run hands over: "best" (best.safetensors, written at each validation that beats the others) or
    // "final" (final.safetensors, the weights at the end, as the seeds keep theirs: on 600 training pairs a
    // validation slice ranks noise).
    std::string keep_model = "best";
    int threads = 0;               // 0: OpenMP's default
    // "cpu" or "cuda" (train/train_device.h). cuda runs each step on the GPU (Transformer + cross_entropy only); the
    // checkpoints are the same files, so a resumed run may switch device (the device of the resuming call counts).
    std::string device = "cpu";
    // cuda: the arithmetic of the matrix products, "fp32", "tf32" or "bf16" (train/gemm_precision.h); the CPU trains
    // in fp32 only. Like the device, the resuming call's choice counts.
    std::string precision = "fp32";
    // A new run into a folder that holds another run's checkpoints or log moves those files aside
    // (move_run_files_aside) instead of refusing to start. Belongs to the call, like out_dir: never saved.
    bool overwrite = false;
};

// Tokens in one batch, padding included: what a step's work scales with.
int64_t tokens_per_batch(const TrainOptions& o);
// The CPU threads a step of this size trains on: `available`, or 1 where the step is too small for a second thread
// to gain anything (its parallel regions would cost more than they save).
int training_threads(int64_t parameters, int64_t tokens_per_batch, int available);

// A run's RNN options in its saved options: what it chooses; a model file stores the whole config
// (bahdanau_config_to_json).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BahdanauConfig, embed_size, num_hiddens, num_layers, dropout, max_len)

// The options a checkpoint saves and a resume reads back; a key that is missing takes TrainOptions' default.
// out_dir and threads belong to each call, not to the run.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TrainOptions, preset, corpus, architecture, model, rnn, lr,
                                                warmup_steps, cooldown_epochs, beta1, beta2, adam_eps, weight_decay,
                                                label_smoothing, clip_norm, max_tokens, num_steps, batch_size, loss,
                                                init, start_from, validate_every, epochs, max_steps, seed,
                                                checkpoint_every, keep_checkpoints, log_every, val_bleu_sentences,
                                                average_last, keep_model, device, precision)

inline nlohmann::json train_options_to_json(const TrainOptions& o) { return o; }
inline TrainOptions train_options_from_json(const nlohmann::json& j) { return j.get<TrainOptions>(); }

// The run's Adam hyperparameters (lr is the peak: each step passes the scheduled rate).
AdamConfig adam_config(const TrainOptions& o);

struct TrainResult {
    TrainingState state;
    double last_loss = 0;        // mean training loss (per target token) of the last step
    double epoch_loss_d2l = 0;   // loss sum / valid target tokens over the last epoch's batches: with masked_softmax_ce the
                                 // seeds' printed loss (sum of l.sum() / tokens), with cross_entropy the mean per token
    double val_loss = 0, val_bleu = 0;  // of the last validation this call ran, when validated
    bool validated = false;
    bool interrupted = false;
    std::string best_model;      // exported best-by-val-BLEU model (F32), with keep_model "best"
    std::string final_model;     // the weights at the end (F32), with keep_model "final" and a run that finished
};

class TrainStepBackend;  // train/train_device.h
struct Transformer;  // model/transformer.h

struct TrainHooks {
    const std::atomic<bool>* stop = nullptr;            // set by a SIGINT handler: save and return
    std::function<void(const std::string&)> progress;   // status line (no newline), e.g. for a progress bar
    std::function<void(const std::string&)> message;    // whole lines
    // Tests: replaces make_train_step_backend(options.device, ...) for a Transformer run (any device), so the
    // trainer's device path (upload, step, download before checkpoints and validation) runs without a GPU.
    std::function<std::unique_ptr<TrainStepBackend>(const Transformer&, const TrainOptions&)> step_backend;
    // The data-parallel group (train/communicator.h); null: world(), the MPI job when started by mpirun, else this
    // process alone. Rank 0 alone logs, validates and writes checkpoints and models.
    Communicator* comm = nullptr;
};

// Trains from scratch, or continues the newest checkpoint in options.out_dir when resume is true, holding the
// folder's RunFolderLock throughout (a second trainer on the folder stops at once). A new run refuses a folder that
// holds another run (run_files) unless options.overwrite. Runs on options.device: for "cuda" the step (forward, loss, backward, clipping, Adam) runs through the GPU step backend of
// train/train_device.h and parameters are copied back to the host before every checkpoint, validation and export.
TrainResult train_translator(const TrainOptions& options, bool resume, const TrainHooks& hooks = {});

// Corpus BLEU (tokenized references) of greedy translations of the first `sentences` validation pairs (0: all);
// sources longer than the model accepts count as empty translations.
double validation_bleu(const TranslatorModel& model, const TranslationCorpus& corpus, int sentences);

}  // namespace attend
