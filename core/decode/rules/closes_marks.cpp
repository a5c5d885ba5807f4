// SearchOptions::close_quotes and close_brackets: a finished translation that leaves a quotation mark or a round
// bracket open (or closes one out of turn) is set aside for one that closes them.
#include "decode/logits_processor.h"

#include "error.h"

namespace attend {
namespace {

class ClosesMarks final : public FinishRule {
public:
    ClosesMarks(const std::vector<TokenShape>& shapes, bool quotes, bool brackets)
        : shapes_(shapes), quotes_(quotes), brackets_(brackets) {}
    bool accepts(const std::vector<int>& tokens) const override {
        const MarkPairs pairs = marks_pair_up(tokens, shapes_);
        return !(quotes_ && !pairs.quotes) && !(brackets_ && !pairs.brackets);
    }

private:
    const std::vector<TokenShape>& shapes_;
    bool quotes_, brackets_;
};

}  // namespace

std::unique_ptr<FinishRule> make_closes_marks(const SearchOptions& options) {
    if (!options.close_quotes && !options.close_brackets) return nullptr;
    if (!options.token_shapes) throw Error("beam search: close_quotes and close_brackets need token_shapes");
    return std::make_unique<ClosesMarks>(*options.token_shapes, options.close_quotes, options.close_brackets);
}

}  // namespace attend
