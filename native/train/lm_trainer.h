// Training of the seeds' character language models (d2l 8.5 train_ch8 / train_epoch_ch8): per epoch, d2l's
// sequential (default) or random-sampling minibatches; with the sequential iterator the hidden state runs on from
// batch to batch within an epoch and is detached (no gradient flows into the previous batch), with the random one
// it starts at zeros for every batch; loss = mean cross-entropy over the batch's T*B predictions, gradients clipped
// to global norm 1 (d2l's grad_clipping), plain SGD (d2l.sgd with batch_size 1, i.e. p -= lr * grad); an epoch's
// perplexity is exp(sum of losses * tokens / tokens), d2l's metric.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lm/char_lm.h"

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

struct LmEpoch {
    int epoch = 0;          // 1-based
    double perplexity = 0;  // training perplexity of the epoch
    double seconds = 0;
    int64_t tokens = 0;     // predictions made
    double grad_norm = 0;   // of the epoch's last batch, before clipping
};

// One epoch over corpus (model allocated with gradients). Throws attend::Error when the corpus is too short for
// one batch or a loss is not finite.
LmEpoch lm_train_epoch(CharLm& model, const std::vector<int>& corpus, const LmTrainOptions& options, int epoch);

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

}  // namespace attend
