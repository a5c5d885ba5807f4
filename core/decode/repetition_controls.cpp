#include "decode/repetition_controls.h"

#include "error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attend {

RepetitionControls::RepetitionControls(const SearchOptions& options, int vocab_size)
    : ngram_(options.no_repeat_ngram_size), penalty_(options.repetition_penalty), vocab_(vocab_size) {
    if (ngram_ < 0) throw Error("no_repeat_ngram_size must not be negative, got " + std::to_string(ngram_));
    if (!std::isfinite(penalty_) || penalty_ <= 0.0f)
        throw Error("repetition_penalty must be a finite number above 0, got " + std::to_string(penalty_));
    if (penalty_ != 1.0f) seen_.assign(static_cast<size_t>(vocab_size), 0);
}

void RepetitionControls::apply(float* logits, const int* generated, int length) {
    if (penalty_ != 1.0f) {
        // Each distinct token once, however often it occurred.
        for (int i = 0; i < length; ++i) {
            const int token = generated[i];
            if (token < 0 || token >= vocab_ || seen_[token]) continue;
            seen_[token] = 1;
            float& x = logits[token];
            x = x < 0.0f ? x * penalty_ : x / penalty_;
        }
        for (int i = 0; i < length; ++i)
            if (generated[i] >= 0 && generated[i] < vocab_) seen_[generated[i]] = 0;
    }
    if (ngram_ > 0 && length >= ngram_ - 1) {
        // The newest n-1 tokens, followed by token x, would form an n-gram: forbid x wherever those n-1 tokens
        // occurred before, followed by x.
        const int context = ngram_ - 1;
        const int* suffix = generated + (length - context);
        for (int start = 0; start + context < length; ++start)
            if (std::equal(suffix, suffix + context, generated + start)) {
                const int banned = generated[start + context];
                if (banned >= 0 && banned < vocab_) logits[banned] = -std::numeric_limits<float>::infinity();
            }
    }
}

}  // namespace attend
