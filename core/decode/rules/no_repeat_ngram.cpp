// SearchOptions::no_repeat_ngram_size (CTranslate2's): no n-gram twice.
#include "decode/logits_processor.h"

#include <algorithm>

namespace attend {
namespace {

class NoRepeatNgram final : public LogitsProcessor {
public:
    NoRepeatNgram(int n, int vocab_size) : n_(n), vocab_(vocab_size) {}
    void apply(float* logits, const int* generated, int length) override {
        if (length < n_ - 1) return;
        // The newest n-1 tokens, followed by token x, would form an n-gram: forbid x wherever those n-1 tokens
        // occurred before, followed by x.
        const int context = n_ - 1;
        const int* suffix = generated + (length - context);
        for (int start = 0; start + context < length; ++start)
            if (std::equal(suffix, suffix + context, generated + start)) {
                const int banned = generated[start + context];
                if (banned >= 0 && banned < vocab_) logits[banned] = kForbidden;
            }
    }

private:
    int n_, vocab_;
};

}  // namespace

std::unique_ptr<LogitsProcessor> make_no_repeat_ngram(const SearchOptions& options, int vocab_size) {
    const int n = not_negative(options.no_repeat_ngram_size, "no_repeat_ngram_size");
    return n > 0 ? std::make_unique<NoRepeatNgram>(n, vocab_size) : nullptr;
}

}  // namespace attend
