// SearchOptions::close_quotes and close_brackets, a finish rule: a finished translation that leaves a quotation
// mark or a round bracket open (or closes one out of turn) is set aside for one that closes them.
#pragma once
#include "decode/logits_processor.h"

#include "error.h"

namespace attend {

class ClosesMarks final : public FinishRule {
public:
    static bool asked(const SearchOptions& o) {
        if ((o.close_quotes || o.close_brackets) && !o.token_shapes)
            throw Error("beam search: close_quotes and close_brackets need token_shapes");
        return o.close_quotes || o.close_brackets;
    }
    explicit ClosesMarks(const SearchOptions& o)
        : shapes_(*o.token_shapes), quotes_(o.close_quotes), brackets_(o.close_brackets) {}
    bool accepts(const std::vector<int>& tokens) const override {
        const MarkPairs pairs = marks_pair_up(tokens, shapes_);
        return !(quotes_ && !pairs.quotes) && !(brackets_ && !pairs.brackets);
    }

private:
    const std::vector<TokenShape>& shapes_;
    bool quotes_, brackets_;
};

}  // namespace attend
