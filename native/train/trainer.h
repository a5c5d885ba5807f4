// `attend train` for Transformer translators: length-bucketed token batches, label-smoothed cross entropy,
// Adam with warmup + inverse-square-root decay, atomic checkpoints every N steps (last K kept), exact resume
// (same batches, same dropout masks: both derive from the seed and the step), Ctrl-C saves and stops,
// validation loss and BLEU per epoch with the best checkpoint kept, a JSON-lines log.
#pragma once
#include "model/transformer_config.h"
#include "train/checkpoint.h"
#include "train/translation_corpus.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace attend {

struct TrainOptions {
    std::string preset;
    CorpusOptions corpus;
    TransformerConfig model;
    // Learning rate: peak `lr` after `warmup_steps` of linear warmup, then lr * sqrt(warmup / step).
    float lr = 5e-3f;
    int warmup_steps = 2000;
    float beta1 = 0.9f, beta2 = 0.98f, adam_eps = 1e-9f, weight_decay = 0.0f;
    float label_smoothing = 0.1f;
    float clip_norm = 0.0f;        // 0: no clipping
    int max_tokens = 4096;         // per batch, padding included
    int epochs = 30;
    int64_t max_steps = 0;         // 0: no limit
    uint64_t seed = 1;
    std::string out_dir = "runs/model";
    int checkpoint_every = 1000;   // steps; also at every epoch end
    int keep_checkpoints = 10;
    int log_every = 50;
    int val_bleu_sentences = 0;    // 0: the whole validation set
    int average_last = 0;          // at the end, also export the mean of the last N checkpoints
    int threads = 0;               // 0: OpenMP's default
};
nlohmann::json train_options_to_json(const TrainOptions& o);
TrainOptions train_options_from_json(const nlohmann::json& j);

// transformer-tiny (Multi30K, joint BPE 10k, 4+4 layers, C 128, ...). Throws naming the known presets.
TrainOptions train_preset(const std::string& name);
std::vector<std::string> train_preset_names();

struct TrainResult {
    TrainingState state;
    double last_loss = 0;        // mean training loss (per target token) of the last step
    double val_loss = 0, val_bleu = 0;
    bool interrupted = false;
    std::string best_model;      // exported best-by-val-BLEU model (F32)
};

struct TrainHooks {
    const std::atomic<bool>* stop = nullptr;            // set by a SIGINT handler: save and return
    std::function<void(const std::string&)> progress;   // status line (no newline), e.g. for a progress bar
    std::function<void(const std::string&)> message;    // whole lines
};

// Trains from scratch, or continues the newest checkpoint in options.out_dir when resume is true.
TrainResult train_translator(const TrainOptions& options, bool resume, const TrainHooks& hooks = {});

// Corpus BLEU (tokenized references) of greedy translations of the validation set.
double validation_bleu(const Transformer& model, const TranslationCorpus& corpus, int bos_id, int eos_id, int sentences);

}  // namespace attend
