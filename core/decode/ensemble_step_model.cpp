#include "decode/ensemble_step_model.h"

#include "error.h"
#include "kernels/softmax.h"

#include <algorithm>
#include <string>

namespace attend {

EnsembleStepModel::EnsembleStepModel(std::vector<std::unique_ptr<StepModel>> members) : members_(std::move(members)) {
    if (members_.empty()) throw Error("an ensemble needs at least one model");
    for (const auto& m : members_)
        if (!m || m->vocab_size() != members_.front()->vocab_size())
            throw Error("the models of an ensemble must share one target vocabulary (sizes " +
                        std::to_string(members_.front()->vocab_size()) + " and " +
                        std::to_string(m ? m->vocab_size() : 0) + ")");
}

int EnsembleStepModel::vocab_size() const { return members_.front()->vocab_size(); }

void EnsembleStepModel::step(float* logits, const int* last_tokens, int n) {
    const size_t size = static_cast<size_t>(n) * vocab_size();
    member_logits_.resize(size);
    member_log_probs_.resize(size);
    std::fill(logits, logits + size, 0.0f);
    for (const auto& m : members_) {
        m->step(member_logits_.data(), last_tokens, n);
        log_softmax_forward(member_log_probs_.data(), member_logits_.data(), n, vocab_size());
        for (size_t i = 0; i < size; i++) logits[i] += member_log_probs_[i];
    }
    const float scale = 1.0f / static_cast<float>(members_.size());
    for (size_t i = 0; i < size; i++) logits[i] *= scale;
}

void EnsembleStepModel::select(const int* parents, int n) {
    for (const auto& m : members_) m->select(parents, n);
}

}  // namespace attend
