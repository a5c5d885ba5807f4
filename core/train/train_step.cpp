#include "train/train_step.h"

#include "error.h"
#include "model/dropout.h"
#include "train/loss.h"
#include "train/trainable_model.h"

#include <algorithm>
#include <cmath>

namespace attend {
namespace {

class CpuTrainStep final : public TrainStepBackend {
public:
    CpuTrainStep(TranslatorModel& model, TrainableModel& trainable, Adam& adam, const TrainOptions& o,
                 Communicator& comm)
        : model_(model), params_(model.parameters()), adam_(adam), trainable_(trainable), comm_(comm),
          masked_loss_(o.loss == "masked_softmax_ce"),
          dropout_p_(model.network->dropout()) {}

    void step(const TrainBatch& b, uint64_t dropout_seed, float label_smoothing, float clip_norm,
              float lr) override {
        taken_ = false;
        last_ = run(b, dropout_seed, label_smoothing, clip_norm, lr);
    }
    StepLoss take_loss() override {
        if (taken_) throw Error("CPU train step: take_loss() without a step whose loss was not taken");
        taken_ = true;
        return last_;
    }
    // The step trains the host copies themselves.
    void download(ParameterStore&, std::vector<float>&, std::vector<float>&) override {}
    void upload(const ParameterStore&, const std::vector<float>&, const std::vector<float>&, int64_t) override {}

private:
    StepLoss run(const TrainBatch& b, uint64_t dropout_seed, float label_smoothing, float clip_norm, float lr) {
        const int N = b.B * b.T, V = static_cast<int>(model_.target_vocab.size()), pad = model_.pad_id;
        const bool share = b.total_rows > 0;  // one rank's rows of a data-parallel batch
        DropoutStream dropout(dropout_p_, dropout_seed);
        if (share && trainable_.dropout_follows_rows()) dropout.set_rows(b.row_begin, b.B, b.total_rows);
        StepLoss loss;
        // Whole-batch denominators, so that the ranks' summed gradients are the whole batch's gradient.
        loss.tokens = masked_loss_ ? (share ? b.global_target_tokens : b.target_tokens)
                                   : (share ? b.global_labels : cross_entropy_count(b.tgt_out.data(), pad, N));
        float* logits = b.B > 0 ? trainable_.forward(b, &dropout) : nullptr;
        if (b.B > 0) {
            // The cross entropy's gradient takes the logits' place at once (the weights do not change before the
            // backward, and a non-finite loss stops before it); the seeds' masked loss keeps its probabilities.
            if (masked_loss_) {
                probs_.resize(size_t(N) * V);
                loss.sum = masked_softmax_ce_forward(nullptr, probs_.data(), logits, b.tgt_out.data(),
                                                     b.tgt_valid.data(), b.B, b.T, V);
            } else {
                loss.sum = cross_entropy_fused(logits, b.tgt_out.data(), pad, label_smoothing,
                                               1.0f / std::max<int64_t>(1, loss.tokens), N, V);
            }
        }
        comm_.allreduce_sum(&loss.sum, 1);  // every rank then stops (or goes on) on the same loss
        // masked_softmax_ce sums per-row means over T
        loss.mean = (masked_loss_ ? loss.sum * b.T : loss.sum) / std::max<int64_t>(1, loss.tokens);
        if (!std::isfinite(loss.mean)) return loss;  // the trainer stops; no update from a broken loss
        params_.zero_grad();
        if (b.B > 0) {
            const float* dlogits = logits;
            if (masked_loss_) {
                dlogits_.assign(size_t(N) * V, 0.0f);
                masked_softmax_ce_backward(dlogits_.data(), nullptr, probs_.data(), b.tgt_out.data(),
                                           b.tgt_valid.data(), b.B, b.T, V);
                dlogits = dlogits_.data();
            }
            trainable_.backward(b, dlogits);
        }
        comm_.allreduce_sum(params_.grads(), params_.size());
        if (clip_norm > 0) clip_grad_norm(params_.grads(), params_.size(), clip_norm);
        adam_.step(params_.values(), params_.grads(), lr);
        return loss;
    }

    TranslatorModel& model_;
    ParameterStore& params_;
    Adam& adam_;
    TrainableModel& trainable_;
    Communicator& comm_;
    const bool masked_loss_;
    const float dropout_p_;
    std::vector<float> probs_, dlogits_;  // the masked loss only
    StepLoss last_;
    bool taken_ = true;
};

}  // namespace

std::unique_ptr<TrainStepBackend> make_cpu_train_step(TranslatorModel& model, TrainableModel& trainable, Adam& adam,
                                                      const TrainOptions& o, Communicator& comm) {
    return std::make_unique<CpuTrainStep>(model, trainable, adam, o, comm);
}

float learning_rate(const TrainOptions& o, int64_t step, double epochs_done) {
    double lr = o.lr;
    if (o.warmup_steps > 0) {
        const double s = static_cast<double>(step), w = o.warmup_steps;
        lr *= std::min(s / w, std::sqrt(w / s));
    }
    if (o.cooldown_epochs > 0) lr *= std::clamp((o.epochs - epochs_done) / o.cooldown_epochs, 0.0, 1.0);
    return static_cast<float>(lr);
}

uint64_t step_seed(uint64_t seed, int64_t step) {
    uint64_t h = seed * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(step) + 0x632BE59BD9B4E019ull);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

}  // namespace attend
