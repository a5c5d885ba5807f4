#include "decode/greedy_search.h"

#include "decode/repetition_controls.h"

#include "error.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"

#include <vector>

namespace attend {

Hypothesis greedy_search(StepModel& model, const SearchOptions& options) {
    if (options.max_length < 1) throw Error("greedy search: max_length must be at least 1");
    const int V = model.vocab_size();
    std::vector<float> logits(V);
    RepetitionControls controls(options, V);
    Hypothesis hyp;
    hyp.tokens.reserve(options.max_length);
    int last = options.bos_id;
    for (int t = 0; t < options.max_length; t++) {
        model.step(logits.data(), &last, 1);
        if (controls.active()) controls.apply(logits.data(), hyp.tokens.data(), static_cast<int>(hyp.tokens.size()));
        // The most likely token is the largest logit; only its log-probability is needed, not the whole row's.
        last = argmax(logits.data(), V);
        hyp.tokens.push_back(last);
        hyp.log_prob += log_softmax_at(logits.data(), V, last);
        if (last == options.eos_id) {
            hyp.finished = true;
            break;
        }
    }
    hyp.score = normalized_score(hyp.log_prob, static_cast<int>(hyp.tokens.size()), options.length_penalty);
    return hyp;
}

}  // namespace attend
