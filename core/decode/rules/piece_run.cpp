// SearchOptions::max_piece_run: no piece inside a word (TokenShape::joins_next) more than n times in a row, unless
// the source holds it n + 1 times in a row.
#include "decode/logits_processor.h"

#include <algorithm>

namespace attend {
namespace {

class PieceRun final : public LogitsProcessor {
public:
    PieceRun(int n, const std::vector<TokenShape>& shapes, const std::vector<int>& source) : n_(n), shapes_(shapes) {
        const int S = static_cast<int>(source.size());
        for (int i = n; i < S; i++)
            if (ends_with_run(source.data(), i + 1, n + 1)) exempt_.push_back(source[i]);
    }
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
    std::vector<int> exempt_;  // the tokens the source holds n + 1 times in a row
};

}  // namespace

std::unique_ptr<LogitsProcessor> make_piece_run(const SearchOptions& options, int vocab_size) {
    const int n = not_negative(options.max_piece_run, "max_piece_run");
    if (n == 0) return nullptr;
    return std::make_unique<PieceRun>(n, shapes_for(options, vocab_size, "max_piece_run"), options.source_ids);
}

}  // namespace attend
