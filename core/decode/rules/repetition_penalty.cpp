// SearchOptions::repetition_penalty: the logit of every token generated before is divided by the penalty
// (multiplied where negative), once however often it occurred.
#include "decode/logits_processor.h"

#include "error.h"

#include <cmath>
#include <string>

namespace attend {
namespace {

class RepetitionPenalty final : public LogitsProcessor {
public:
    RepetitionPenalty(float penalty, int vocab_size) : penalty_(penalty), seen_(static_cast<size_t>(vocab_size), 0) {}
    void apply(float* logits, const int* generated, int length) override {
        const int V = static_cast<int>(seen_.size());
        for (int i = 0; i < length; ++i) {
            const int token = generated[i];
            if (token < 0 || token >= V || seen_[token]) continue;
            seen_[token] = 1;
            float& x = logits[token];
            x = x < 0.0f ? x * penalty_ : x / penalty_;
        }
        for (int i = 0; i < length; ++i)
            if (generated[i] >= 0 && generated[i] < V) seen_[generated[i]] = 0;
    }

private:
    float penalty_;
    std::vector<uint8_t> seen_;  // [V] scratch, all zero between calls
};

}  // namespace

std::unique_ptr<LogitsProcessor> make_repetition_penalty(const SearchOptions& options, int vocab_size) {
    const float penalty = options.repetition_penalty;
    if (!std::isfinite(penalty) || penalty <= 0.0f)
        throw Error("repetition_penalty must be a finite number above 0, got " + std::to_string(penalty));
    return penalty != 1.0f ? std::make_unique<RepetitionPenalty>(penalty, vocab_size) : nullptr;
}

}  // namespace attend
