// SearchOptions::repetition_penalty (CTRL's, as CTranslate2 applies it): the logit of every token generated before
// is divided by the penalty (multiplied where negative), once however often it occurred.
#pragma once
#include "decode/logits_processor.h"

#include "error.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace attend {

class RepetitionPenalty final : public LogitsProcessor {
public:
    static bool asked(const SearchOptions& o) {
        if (!std::isfinite(o.repetition_penalty) || o.repetition_penalty <= 0.0f)
            throw Error("repetition_penalty must be a finite number above 0, got " +
                        std::to_string(o.repetition_penalty));
        return o.repetition_penalty != 1.0f;
    }
    RepetitionPenalty(const SearchOptions& o, int vocab_size)
        : penalty_(o.repetition_penalty), seen_(static_cast<size_t>(vocab_size), 0) {}
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

}  // namespace attend
