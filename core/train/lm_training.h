// Training of the seeds' character language models (d2l 8.5 train_ch8 / train_epoch_ch8), one batch at a time: per
// epoch, d2l's sequential (default) or random-sampling minibatches; with the sequential iterator the hidden state
// runs on from batch to batch within an epoch and is detached (no gradient flows into the previous batch), with the
// random one it starts at zeros for every batch; loss = mean cross-entropy over the batch's T*B predictions,
// gradients clipped to global norm 1 (d2l's grad_clipping), plain SGD (d2l.sgd with batch_size 1, i.e.
// p -= lr * grad); an epoch's perplexity is exp(sum of losses * tokens / tokens), d2l's metric.
//
// The step is this file's, shared by native `attend lm train` (native/train/lm_trainer.h, which only installs its
// matrix products first) and the page's LmTrainingSession, so that both train the same parameters bit for bit on
// the same products.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lm/char_corpus.h"
#include "lm/char_lm.h"
#include "lm/lm_model_file.h"
#include "train/optimizer.h"

namespace attend {

struct LmTrainOptions {
    float lr = 1.0f;
    int epochs = 500;
    int batch = 32;
    int steps = 35;
    bool random_iter = false;
    double clip_norm = 1.0;  // 0: no clipping
    uint64_t seed = 0;       // the iterators' offsets and orders (the parameters are drawn by CharLm::init_parameters)
};

// A model the seeds train (d2l 8.5-9.4, the Chinese edition's settings): sizes, learning rate, epochs, and the first
// max_tokens characters of the book as training data.
struct LmPreset {
    std::string name;
    CharLmConfig model;  // vocab_size set from the data
    LmTrainOptions train;
    int max_tokens = 10000;
    std::string description;
};

// rnn-d2l, gru-d2l, lstm-d2l, deep-lstm-d2l, birnn-d2l; throws attend::Error naming the choices.
const LmPreset& lm_preset(const std::string& name);
const std::vector<LmPreset>& lm_presets();

// Epoch `epoch`'s (1-based) minibatches: the iterator's offset (and the random one's order) drawn from the seed and
// the epoch, the same on every machine. Throws attend::Error when the corpus is too short for one batch, saying how
// many tokens it needs.
std::vector<LmBatch> lm_epoch_batches(const std::vector<int>& corpus, const LmTrainOptions& options, int epoch);

// One trained batch.
struct LmBatchResult {
    double loss_sum = 0;   // the batch's mean cross-entropy * its T*B predictions (d2l's l * y.numel())
    double loss = 0;       // the mean
    double grad_norm = 0;  // before clipping
};

// One epoch trained batch by batch on a model it borrows (allocated with gradients): the hidden state carried from
// batch to batch as the iterator asks, the sums behind the epoch's perplexity.
class LmEpochTrainer {
public:
    LmEpochTrainer(CharLm& model, const LmTrainOptions& options);

    // The epoch's batches from the corpus (which must outlive the epoch), the state at zeros.
    void begin(const std::vector<int>& corpus, int epoch);
    bool done() const { return next_ >= batches_.size(); }
    size_t batch() const { return next_; }  // the next batch's index
    size_t batches() const { return batches_.size(); }
    // Trains the next batch. Throws attend::Error when its loss is not finite (the parameters are then untouched).
    LmBatchResult step();

    int epoch() const { return epoch_; }
    int64_t tokens() const { return tokens_; }
    // exp(loss sum / tokens) of the batches trained so far in this epoch.
    double perplexity() const;

private:
    CharLm& model_;
    LmTrainOptions o_;
    SGD sgd_;  // momentum 0: p -= lr * grad, no state between batches
    std::vector<LmBatch> batches_;
    size_t next_ = 0;
    int epoch_ = 0;
    std::vector<float> h_, c_, h_next_, c_next_, logits_;
    std::vector<int> y_;
    double loss_sum_ = 0;
    int64_t tokens_ = 0;
};

// A text as `attend lm train` reads its book: d2l's cleaning, the vocabulary of the whole cleaned text (d2l's
// load_corpus_time_machine), its ids, then the first max_chars of them (0: all).
struct LmText {
    Vocab vocab;
    std::vector<int> ids;
};
LmText lm_text(const std::string& text, int64_t max_chars);

// Limits of a text a session trains on (the raw bytes before cleaning).
constexpr size_t kLmMaxTextBytes = size_t(64) << 20;

// A character language model's training held in memory, what the browser trains with: the preset's model
// initialised from the seed, trained on a text batch after batch, epoch after epoch.
struct LmSessionStep {
    int64_t step = 0;    // 1-based over the session
    int epoch = 0;       // 0-based epoch of the batch
    size_t batch = 0;    // its index in the epoch, and the epoch's batch count
    size_t batches = 0;
    LmBatchResult result;
    bool epoch_done = false;  // the epoch's last batch: epoch_perplexity() now covers that epoch
};

class LmTrainingSession {
public:
    // text: raw UTF-8 (checked: invalid UTF-8, an empty text or one too long is refused by name); max_chars: the
    // first characters after cleaning that train (the preset's 10,000; 0: all), which must make at least one batch
    // of batch x steps. options.seed draws the parameters (CharLm::init_parameters) and the iterators, as
    // `attend lm train --seed` does.
    LmTrainingSession(const LmPreset& preset, const std::string& text, LmTrainOptions options, int64_t max_chars);

    LmSessionStep step();

    double epoch_perplexity() const { return last_perplexity_; }  // of the last finished epoch; 0 before
    int epochs_done() const { return epochs_done_; }
    int64_t steps() const { return step_; }
    size_t batches_per_epoch() const { return batches_per_epoch_; }

    // Greedy continuation (d2l's predict_ch8): the prefix and `length` characters after it.
    std::string predict(const std::string& prefix, int length);

    const LmPreset& preset() const { return preset_; }
    const LmTrainOptions& options() const { return o_; }
    const std::vector<int>& corpus() const { return corpus_; }
    LanguageModel& model() { return model_; }
    const LanguageModel& model() const { return model_; }

private:
    LmPreset preset_;
    LmTrainOptions o_;
    LanguageModel model_;
    std::vector<int> corpus_;
    std::unique_ptr<LmEpochTrainer> trainer_;
    size_t batches_per_epoch_ = 0;
    int64_t step_ = 0;
    int epochs_done_ = 0;
    double last_perplexity_ = 0;
};

}  // namespace attend
