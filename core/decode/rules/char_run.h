// SearchOptions::max_char_run: no character more than n times in a row in the output text, except those of
// char_run_exempt (which the source itself repeats so).
#pragma once
#include "decode/logits_processor.h"

#include <string>

namespace attend {

class CharRun final : public LogitsProcessor {
public:
    static bool asked(const SearchOptions& o) { return not_negative(o.max_char_run, "max_char_run") > 0; }
    CharRun(const SearchOptions& o, int vocab_size)
        : n_(o.max_char_run), shapes_(shapes_for(o, vocab_size, "max_char_run")), exempt_(o.char_run_exempt) {}
    void apply(float* logits, const int* generated, int length) override {
        if (length == 0) return;
        // The run of one character at the end of the text so far: the last token's trailing run, extended back
        // through glued tokens made of that character only.
        const TokenShape& last = shape_at(shapes_, generated[length - 1]);
        const char32_t c = last.last;
        if (c == 0 || !last.joins_next || exempt_.find(c) != std::u32string::npos) return;
        int run = last.trail;
        for (int i = length - 1; i > 0 && shape_at(shapes_, generated[i]).uniform; i--) {
            const TokenShape& before = shape_at(shapes_, generated[i - 1]);
            if (!before.joins_next || before.last != c) break;
            run += before.trail;
        }
        for (size_t v = 0; v < shapes_.size(); v++)
            if (shapes_[v].first == c && run + shapes_[v].lead > n_) logits[v] = kForbidden;
    }

private:
    int n_;
    const std::vector<TokenShape>& shapes_;
    std::u32string exempt_;
};

}  // namespace attend
