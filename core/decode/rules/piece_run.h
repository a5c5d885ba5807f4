// SearchOptions::max_piece_run: no piece inside a word (TokenShape::joins_next) more than n times in a row, unless
// the source holds it n + 1 times in a row.
#pragma once
#include "decode/logits_processor.h"

#include <algorithm>

namespace attend {

class PieceRun final : public LogitsProcessor {
public:
    // The sentence's exemption, once: the pieces its source holds n + 1 times in a row.
    PieceRun(const SearchOptions& o, int vocab_size)
        : n_(o.max_piece_run), shapes_(shapes_for(o, vocab_size, "max_piece_run")) {
        for (size_t i = n_; i < o.source_ids.size(); i++)
            if (ends_with_run(o.source_ids.data(), static_cast<int>(i) + 1, n_ + 1)) exempt_.push_back(o.source_ids[i]);
    }
    static bool asked(const SearchOptions& o) { return not_negative(o.max_piece_run, "max_piece_run") > 0; }
    void apply(float* logits, const int* generated, int length) override {
        if (length < n_) return;
        const int token = generated[length - 1];
        if (shape_at(shapes_, token).joins_next && ends_with_run(generated, length, n_) &&
            std::find(exempt_.begin(), exempt_.end(), token) == exempt_.end())
            logits[token] = kForbidden;
    }

private:
    int n_;
    const std::vector<TokenShape>& shapes_;
    std::vector<int> exempt_;
};

}  // namespace attend
