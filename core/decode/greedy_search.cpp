#include "decode/greedy_search.h"

#include "decode/logits_processor.h"

#include "error.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace attend {

Hypothesis greedy_search(StepModel& model, const SearchOptions& options) {
    if (options.max_length < 1) throw Error("greedy search: max_length must be at least 1");
    const int V = model.vocab_size();
    check_prefix(options, V);
    const int P = static_cast<int>(options.prefix.size());
    const int k = std::min(options.alternatives, V);
    std::vector<float> logits(V), raw;
    LogitsProcessors processors = make_logits_processors(options, V);
    Hypothesis hyp;
    hyp.tokens.reserve(options.max_length);
    int last = options.bos_id;
    for (int t = 0; t < options.max_length; t++) {
        model.step(logits.data(), &last, 1);
        const bool forced = t < P;
        if (forced && !processors.empty()) raw = logits;
        apply_logits_processors(processors, logits.data(), hyp.tokens.data(), static_cast<int>(hyp.tokens.size()));
        // The most likely token is the largest logit; only its log-probability is needed, not the whole row's.
        last = forced ? options.prefix[t] : argmax(logits.data(), V);
        float log_prob = log_softmax_at(logits.data(), V, last);
        // A forced token the rules forbid is scored by the model's own distribution.
        if (forced && log_prob == -std::numeric_limits<float>::infinity() && !raw.empty())
            log_prob = log_softmax_at(raw.data(), V, last);
        if (k > 0) append_alternatives(hyp, logits.data(), V, k, log_prob, /*log_probs=*/false);
        hyp.tokens.push_back(last);
        hyp.log_prob += log_prob;
        if (last == options.eos_id) {
            hyp.finished = true;
            break;
        }
    }
    hyp.score = normalized_score(hyp.log_prob, static_cast<int>(hyp.tokens.size()), options.length_penalty);
    return hyp;
}

}  // namespace attend
