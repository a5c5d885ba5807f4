#include "train/lm_trainer.h"
#include "train/native_gemm.h"

#include <chrono>

namespace attend {

LmEpoch lm_train_epoch(CharLm& model, const std::vector<int>& corpus, const LmTrainOptions& o, int epoch,
                       const std::function<void(const LmBatchResult&)>& on_batch) {
    use_native_gemm();
    const auto start = std::chrono::steady_clock::now();
    LmEpochTrainer trainer(model, o);
    trainer.begin(corpus, epoch);
    LmEpoch e;
    e.epoch = epoch;
    while (!trainer.done()) {
        const LmBatchResult r = trainer.step();
        e.grad_norm = r.grad_norm;
        if (on_batch) on_batch(r);
    }
    e.perplexity = trainer.perplexity();
    e.tokens = trainer.tokens();
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return e;
}

}  // namespace attend
