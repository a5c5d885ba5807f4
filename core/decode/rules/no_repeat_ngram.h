// SearchOptions::no_repeat_ngram_size (CTranslate2's): no n-gram twice.
#pragma once
#include "decode/logits_processor.h"

#include <algorithm>

namespace attend {

class NoRepeatNgram final : public LogitsProcessor {
public:
    static bool asked(const SearchOptions& o) {
        return not_negative(o.no_repeat_ngram_size, "no_repeat_ngram_size") > 0;
    }
    NoRepeatNgram(const SearchOptions& o, int vocab_size) : context_(o.no_repeat_ngram_size - 1), vocab_(vocab_size) {}
    // The newest n-1 tokens, followed by token x, would form an n-gram: x is forbidden wherever those n-1 tokens
    // occurred before, followed by x.
    void apply(float* logits, const int* generated, int length) override {
        if (length < context_) return;
        const int* suffix = generated + (length - context_);
        for (int start = 0; start + context_ < length; ++start)
            if (std::equal(suffix, suffix + context_, generated + start)) {
                const int banned = generated[start + context_];
                if (banned >= 0 && banned < vocab_) logits[banned] = kForbidden;
            }
    }

private:
    int context_, vocab_;
};

}  // namespace attend
