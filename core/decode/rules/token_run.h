// SearchOptions::max_token_run: no token more than n times in a row.
#pragma once
#include "decode/logits_processor.h"

namespace attend {

struct TokenRun final : LogitsProcessor {
    static bool asked(const SearchOptions& o) { return not_negative(o.max_token_run, "max_token_run") > 0; }
    TokenRun(const SearchOptions& o, int vocab_size) : n(o.max_token_run), vocab(vocab_size) {}
    void apply(float* logits, const int* generated, int length) override {
        const int token = length >= n ? generated[length - 1] : -1;
        if (token >= 0 && token < vocab && ends_with_run(generated, length, n)) logits[token] = kForbidden;
    }
    const int n, vocab;
};

}  // namespace attend
