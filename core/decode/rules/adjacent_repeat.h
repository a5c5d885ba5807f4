// SearchOptions::no_adjacent_repeat_size: no phrase of 2 to n tokens right after itself, unless the source holds
// that phrase twice in a row.
#pragma once
#include "decode/logits_processor.h"

#include <algorithm>

namespace attend {

class AdjacentRepeat final : public LogitsProcessor {
public:
    // The sentence's exemption, once: the phrases its source says twice in a row.
    AdjacentRepeat(const SearchOptions& o, int vocab_size) : n_(o.no_adjacent_repeat_size), vocab_(vocab_size) {
        const std::vector<int>& source = o.source_ids;
        for (size_t k = 2; k <= static_cast<size_t>(n_); k++)
            for (size_t i = 0; i + 2 * k <= source.size(); i++)
                if (std::equal(source.begin() + i, source.begin() + i + k, source.begin() + i + k))
                    exempt_.emplace_back(source.begin() + i, source.begin() + i + k);
    }
    static bool asked(const SearchOptions& o) {
        return not_negative(o.no_adjacent_repeat_size, "no_adjacent_repeat_size") > 1;
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
    std::vector<std::vector<int>> exempt_;

    bool exempt(const int* phrase, int k) const {
        return std::any_of(exempt_.begin(), exempt_.end(), [&](const std::vector<int>& p) {
            return static_cast<int>(p.size()) == k && std::equal(p.begin(), p.end(), phrase);
        });
    }
};

}  // namespace attend
