// A translator's training held in memory: the model a run's options describe over a corpus, initialised from the
// seed, Adam, and each epoch's batches in the order the seed gives, trained one batch at a time on the CPU
// (train/train_step.h). What the browser trains with, and what the native trainer (native/train/trainer.h) is
// built from: the same functions choose its batches, rates, dropout seeds and steps, so a session and a native run
// of the same options over the same corpus train the same parameters bit for bit.
#pragma once
#include "train/collective.h"
#include "train/corpus.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "train/train_options.h"
#include "train/train_step.h"
#include "translate/model_file.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attend {

class TrainableModel;  // train/trainable_model.h
class ThreadRanks;     // train/thread_ranks.h

// The untrained model (allocated with gradients) the options describe at the corpus's vocabulary sizes; o may take
// those sizes, so that the saved options describe the model.
TranslatorModel build_model(TrainOptions& o, const TranslationCorpus& corpus);

// The run's Adam hyperparameters (lr is the peak: each step passes the scheduled rate).
AdamConfig adam_config(const TrainOptions& o);

// How the run's batches are laid out: the model's special ids, the seeds' num_steps.
BatchLayout batch_layout(const TranslatorModel& tm, const TrainOptions& o);

// Epoch `epoch`'s batches (training example indices): the seeds' shuffled batch_size sentences (num_steps > 0), or
// length-bucketed batches of at most max_tokens tokens; the same for a given seed and epoch on every run.
std::vector<std::vector<size_t>> epoch_batches(const TrainOptions& o, const TranslationCorpus& corpus, int64_t epoch);

// Mean cross entropy per target token (no label smoothing) over the validation set, teacher forced, no dropout.
double validation_loss(TrainableModel& trainable, const TranslatorModel& tm, const TranslationCorpus& corpus,
                       const BatchLayout& layout);

// Corpus BLEU (tokenized references) of greedy translations of the first `sentences` validation pairs (0: all);
// sources longer than the model accepts count as empty translations.
double validation_bleu(const TranslatorModel& model, const TranslationCorpus& corpus, int sentences);

// One trained batch.
struct SessionStep {
    int64_t step = 0;     // 1-based, over the session
    int64_t epoch = 0;    // 0-based epoch the batch belongs to
    size_t batch = 0;     // its index in the epoch, and the epoch's batch count
    size_t batches = 0;
    float lr = 0;
    StepLoss loss;
    bool epoch_done = false;  // the epoch's last batch: epoch_loss() now covers that epoch
};

class TrainingSession {
public:
    // o.init from o.seed; the options take the corpus's vocabulary sizes (options()). With a communicator of several
    // ranks, this session is one of them: it trains on its share of every batch (shard_rows) and sums its gradients
    // with the others', so every rank's session holds the same parameters after each step.
    TrainingSession(TrainOptions o, TranslationCorpus corpus, Communicator& comm = single_process());
    ~TrainingSession();
    TrainingSession(const TrainingSession&) = delete;
    TrainingSession& operator=(const TrainingSession&) = delete;

    // Trains the next batch: the current epoch's next one, or the first of the next epoch. Throws attend::Error when
    // the loss is not finite (the parameters are then left as before the step).
    SessionStep step();

    // The seeds' printed loss over the last finished epoch (loss sum / target tokens); 0 before the first.
    double epoch_loss() const { return last_epoch_loss_; }
    int64_t steps() const { return step_; }
    int64_t epochs_done() const { return epoch_; }

    double validation_loss();
    double validation_bleu(int sentences) const { return attend::validation_bleu(model_, corpus_, sentences); }

    TranslatorModel& model() { return model_; }
    const TranslatorModel& model() const { return model_; }
    const TrainOptions& options() const { return o_; }
    const TranslationCorpus& corpus() const { return corpus_; }

private:
    TrainOptions o_;
    Communicator& comm_;
    TranslationCorpus corpus_;
    TranslatorModel model_;
    std::unique_ptr<TrainableModel> trainable_;
    BatchLayout layout_;
    Adam adam_;
    std::unique_ptr<TrainStepBackend> backend_;
    std::vector<std::vector<size_t>> batches_;  // the current epoch's; empty before it starts
    size_t next_batch_ = 0;
    int64_t step_ = 0, epoch_ = 0;
    double epoch_loss_sum_ = 0, last_epoch_loss_ = 0;
    int64_t epoch_tokens_ = 0;
};

// A training session data-parallel over the threads of `ranks` (train/thread_ranks.h): one TrainingSession per rank,
// each on its share of every batch, their gradients summed in a fixed order, so the replicas hold the same parameters
// after every step; it trains what one session trains on the whole batch up to float rounding (the sum of the shares'
// gradients is rounded otherwise than one GEMM over all rows). Without ranks (null, or one rank): one session on the
// calling thread, the TrainingSession itself bit for bit. Several sessions may share one ThreadRanks (they step one
// at a time).
class ThreadedTrainingSession {
public:
    ThreadedTrainingSession(TrainOptions o, TranslationCorpus corpus, std::shared_ptr<ThreadRanks> ranks = nullptr);
    ~ThreadedTrainingSession();
    ThreadedTrainingSession(const ThreadedTrainingSession&) = delete;
    ThreadedTrainingSession& operator=(const ThreadedTrainingSession&) = delete;

    // TrainingSession::step on every rank at once; rank 0's record (every rank's is the same). After an error that
    // left the replicas apart (one rank failed inside a step), every later step throws.
    SessionStep step();

    // Rank 0's session: the model, options, corpus, epoch loss and validation (run on the calling thread).
    TrainingSession& session() { return *replicas_[0]; }
    const TrainingSession& session() const { return *replicas_[0]; }
    int threads() const { return static_cast<int>(replicas_.size()); }

private:
    std::shared_ptr<ThreadRanks> ranks_;
    std::vector<std::unique_ptr<TrainingSession>> replicas_;
    std::string broken_;  // why the replicas no longer agree; empty while they do
};

}  // namespace attend
