// SearchOptions::no_adjacent_repeat_size: no phrase of 2 to n tokens right after itself, unless the source holds
// that phrase twice in a row.
#include "decode/logits_processor.h"

#include <algorithm>

namespace attend {
namespace {

class AdjacentRepeat final : public LogitsProcessor {
public:
    AdjacentRepeat(int n, int vocab_size, const std::vector<int>& source) : n_(n), vocab_(vocab_size) {
        const int S = static_cast<int>(source.size());
        for (int k = 2; k <= n; k++)
            for (int i = 0; i + 2 * k <= S; i++)
                if (std::equal(source.begin() + i, source.begin() + i + k, source.begin() + i + k))
                    exempt_.emplace_back(source.begin() + i, source.begin() + i + k);
    }
    void apply(float* logits, const int* generated, int length) override {
        for (int k = 2; k <= n_ && 2 * k - 1 <= length; ++k) {
            // The phrase first [k] said once, and its first k - 1 tokens said again at the end: its last token
            // would say it twice in a row.
            const int* first = generated + (length - (2 * k - 1));
            if (!std::equal(first, first + k - 1, first + k)) continue;
            const int banned = first[k - 1];
            if (banned >= 0 && banned < vocab_ && !exempt(first, k)) logits[banned] = kForbidden;
        }
    }

private:
    int n_, vocab_;
    std::vector<std::vector<int>> exempt_;  // the phrases the source says twice in a row

    bool exempt(const int* phrase, int k) const {
        return std::any_of(exempt_.begin(), exempt_.end(), [&](const std::vector<int>& p) {
            return static_cast<int>(p.size()) == k && std::equal(p.begin(), p.end(), phrase);
        });
    }
};

}  // namespace

std::unique_ptr<LogitsProcessor> make_adjacent_repeat(const SearchOptions& options, int vocab_size) {
    const int n = not_negative(options.no_adjacent_repeat_size, "no_adjacent_repeat_size");
    return n > 1 ? std::make_unique<AdjacentRepeat>(n, vocab_size, options.source_ids) : nullptr;
}

}  // namespace attend
