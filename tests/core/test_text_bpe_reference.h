// A deliberately naive BPE learner for the tests: it recounts every pair of every word before each merge
// and picks the highest count, ties to the greatest (first, second) pair, as subword-nmt's
// max(stats, key=lambda x: (stats[x], x)) does. The product's incremental learner must agree with it.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "text/bpe.h"

namespace attend::test {

inline std::vector<std::string> reference_split_characters(const std::string& word) {
    std::vector<std::string> chars;
    for (unsigned char byte : word) {
        if ((byte & 0xC0) == 0x80 && !chars.empty())
            chars.back().push_back(static_cast<char>(byte));
        else
            chars.emplace_back(1, static_cast<char>(byte));
    }
    return chars;
}

inline std::vector<BpeMerge> reference_learn_bpe(const WordCounts& counts, int num_merges,
                                                 std::int64_t min_frequency = 2) {
    std::vector<std::pair<std::vector<std::string>, std::int64_t>> words;
    for (const auto& [word, count] : counts) {
        std::vector<std::string> symbols = reference_split_characters(word);
        symbols.back() += "</w>";
        words.emplace_back(symbols, count);
    }
    std::vector<BpeMerge> merges;
    for (int m = 0; m < num_merges; ++m) {
        std::map<std::pair<std::string, std::string>, std::int64_t> stats;
        for (const auto& [symbols, count] : words)
            for (std::size_t i = 0; i + 1 < symbols.size(); ++i) stats[{symbols[i], symbols[i + 1]}] += count;
        if (stats.empty()) break;
        auto best = stats.begin();
        for (auto it = stats.begin(); it != stats.end(); ++it)
            if (it->second >= best->second) best = it;  // map order: a later equal count is a greater pair
        if (best->second < min_frequency) break;
        const auto [first, second] = best->first;
        merges.push_back({first, second});
        for (auto& [symbols, count] : words) {
            std::vector<std::string> merged;
            for (std::size_t i = 0; i < symbols.size();) {
                if (i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second) {
                    merged.push_back(first + second);
                    i += 2;
                } else {
                    merged.push_back(symbols[i++]);
                }
            }
            symbols = merged;
        }
    }
    return merges;
}

}  // namespace attend::test
