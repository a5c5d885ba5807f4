// Several models that share a target vocabulary, seen by greedy and beam search as one (the ensembles of Marian
// and fairseq): each step's scores are the mean of the members' log-probabilities, so the search's softmax of them
// is the normalized geometric mean of the members' next-token distributions. Each member keeps its own caches;
// select() reorders all of them alike.
#pragma once
#include "decode/step_model.h"

#include <memory>
#include <vector>

namespace attend {

class EnsembleStepModel : public StepModel {
public:
    // At least one member, all of one vocab_size(); throws attend::Error otherwise.
    explicit EnsembleStepModel(std::vector<std::unique_ptr<StepModel>> members);

    int vocab_size() const override;
    // logits [n, V] := mean over members of log_softmax(member logits)
    void step(float* logits, const int* last_tokens, int n) override;
    void select(const int* parents, int n) override;

private:
    std::vector<std::unique_ptr<StepModel>> members_;
    std::vector<float> member_logits_, member_log_probs_;  // [n, V] scratch
};

}  // namespace attend
