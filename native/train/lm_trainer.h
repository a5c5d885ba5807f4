// Native training of the seeds' character language models: an epoch of the core's step (train/lm_training.h) on
// this build's matrix products (train/native_gemm.h), timed, for `attend lm train`.
#pragma once
#include <cstdint>
#include <functional>

#include "train/lm_training.h"

namespace attend {

struct LmEpoch {
    int epoch = 0;          // 1-based
    double perplexity = 0;  // training perplexity of the epoch
    double seconds = 0;
    int64_t tokens = 0;     // predictions made
    double grad_norm = 0;   // of the epoch's last batch, before clipping
};

// One epoch over corpus (model allocated with gradients); on_batch, when given, hears each batch's result. Throws
// attend::Error when the corpus is too short for one batch or a loss is not finite.
LmEpoch lm_train_epoch(CharLm& model, const std::vector<int>& corpus, const LmTrainOptions& options, int epoch,
                       const std::function<void(const LmBatchResult&)>& on_batch = {});

}  // namespace attend
