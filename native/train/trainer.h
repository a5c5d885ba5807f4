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
#include "train/train_options.h"
#include "train/training_session.h"
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

}  // namespace attend
