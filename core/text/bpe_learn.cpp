// Bpe::learn: joint BPE learning with an incremental pair index, so each merge touches only the words that
// contain the merged pair (subword-nmt's approach) instead of recounting the corpus.
#include <algorithm>
#include <queue>
#include <unordered_map>

#include "error.h"
#include "text/bpe.h"
#include "text/utf8.h"

namespace attend {
namespace {

using Symbol = std::uint32_t;
using PairId = std::uint64_t;

PairId make_pair_id(Symbol first, Symbol second) { return (static_cast<PairId>(first) << 32) | second; }
Symbol first_of(PairId pair) { return static_cast<Symbol>(pair >> 32); }
Symbol second_of(PairId pair) { return static_cast<Symbol>(pair & 0xFFFFFFFFu); }

struct Word {
    std::vector<Symbol> symbols;
    std::int64_t count;
};

class BpeLearner {
public:
    BpeLearner(const WordCounts& counts, bool split_digits) : split_digits_(split_digits) {
        words_.reserve(counts.size());
        for (const auto& [text, count] : counts) {
            if (text.empty() || count <= 0) continue;
            std::u32string chars = utf8_decode(text);
            Word word{{}, count};
            word.symbols.reserve(chars.size());
            for (std::size_t i = 0; i < chars.size(); ++i) {
                std::string symbol = utf8_encode(std::u32string(1, chars[i]));
                if (i + 1 == chars.size()) symbol += Bpe::kEndOfWord;
                word.symbols.push_back(intern(symbol));
            }
            words_.push_back(std::move(word));
        }
        for (std::size_t w = 0; w < words_.size(); ++w) add_pairs(static_cast<std::uint32_t>(w), +1, nullptr);
        for (const auto& [pair, count] : pair_counts_) heap_.push({count, pair});
        visited_.assign(words_.size(), -1);
    }

    std::vector<BpeMerge> learn(int num_merges, std::int64_t min_frequency) {
        std::vector<BpeMerge> merges;
        merges.reserve(num_merges);
        for (int m = 0; m < num_merges; ++m) {
            PairId best;
            if (!pop_best(best)) break;
            if (pair_counts_[best] < min_frequency) break;
            merges.push_back({symbols_[first_of(best)], symbols_[second_of(best)]});
            merge(best, m);
        }
        return merges;
    }

private:
    struct HeapEntry {
        std::int64_t count;
        PairId pair;
    };
    // Max-heap order: higher count first; on a tie the lexicographically greater (first, second) pair.
    struct HeapOrder {
        const std::vector<std::string>* symbols;
        bool operator()(const HeapEntry& a, const HeapEntry& b) const {
            if (a.count != b.count) return a.count < b.count;
            const std::string& a1 = (*symbols)[first_of(a.pair)];
            const std::string& b1 = (*symbols)[first_of(b.pair)];
            if (a1 != b1) return a1 < b1;
            return (*symbols)[second_of(a.pair)] < (*symbols)[second_of(b.pair)];
        }
    };

    Symbol intern(const std::string& symbol) {
        auto [it, inserted] = symbol_ids_.emplace(symbol, static_cast<Symbol>(symbols_.size()));
        if (inserted) {
            symbols_.push_back(symbol);
            frozen_.push_back(split_digits_ && std::any_of(symbol.begin(), symbol.end(),
                                                           [](char c) { return c >= '0' && c <= '9'; }));
        }
        return it->second;
    }

    // A pair with a frozen symbol (a digit under split_digits) is never counted, so it is never merged.
    bool mergeable(Symbol a, Symbol b) const { return !frozen_[a] && !frozen_[b]; }

    // Adds (sign +1) or removes (-1) the pairs of word w to the counts; new pairs index the word.
    void add_pairs(std::uint32_t w, int sign, std::vector<PairId>* changed) {
        const Word& word = words_[w];
        for (std::size_t i = 0; i + 1 < word.symbols.size(); ++i) {
            if (!mergeable(word.symbols[i], word.symbols[i + 1])) continue;
            PairId pair = make_pair_id(word.symbols[i], word.symbols[i + 1]);
            pair_counts_[pair] += sign * word.count;
            if (sign > 0) pair_words_[pair].push_back(w);
            if (changed) changed->push_back(pair);
        }
    }

    bool pop_best(PairId& best) {
        while (!heap_.empty()) {
            HeapEntry top = heap_.top();
            heap_.pop();
            auto it = pair_counts_.find(top.pair);
            if (it != pair_counts_.end() && it->second == top.count && top.count > 0) {
                best = top.pair;
                return true;
            }
        }
        return false;
    }

    void merge(PairId pair, int merge_index) {
        const Symbol first = first_of(pair), second = second_of(pair);
        const Symbol merged = intern(symbols_[first] + symbols_[second]);
        std::vector<PairId> changed;
        // The index may list a word twice or list words that no longer hold the pair: check each once.
        std::vector<std::uint32_t> candidates = std::move(pair_words_[pair]);
        pair_words_.erase(pair);
        for (std::uint32_t w : candidates) {
            if (visited_[w] == merge_index) continue;
            visited_[w] = merge_index;
            std::vector<Symbol>& symbols = words_[w].symbols;
            bool present = false;
            for (std::size_t i = 0; i + 1 < symbols.size() && !present; ++i)
                present = symbols[i] == first && symbols[i + 1] == second;
            if (!present) continue;
            add_pairs(w, -1, &changed);
            std::vector<Symbol> replaced;
            replaced.reserve(symbols.size());
            for (std::size_t i = 0; i < symbols.size();) {
                if (i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second) {
                    replaced.push_back(merged);
                    i += 2;
                } else {
                    replaced.push_back(symbols[i++]);
                }
            }
            symbols.swap(replaced);
            add_pairs_after_merge(w, merged, &changed);
        }
        pair_counts_.erase(pair);
        std::sort(changed.begin(), changed.end());
        changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
        for (PairId p : changed) {
            auto it = pair_counts_.find(p);
            if (it == pair_counts_.end()) continue;
            if (it->second <= 0) {
                pair_counts_.erase(it);
                continue;
            }
            heap_.push({it->second, p});
        }
    }

    // Re-adds the word's pair counts; only pairs containing the new symbol are new to the index.
    void add_pairs_after_merge(std::uint32_t w, Symbol merged, std::vector<PairId>* changed) {
        const Word& word = words_[w];
        for (std::size_t i = 0; i + 1 < word.symbols.size(); ++i) {
            if (!mergeable(word.symbols[i], word.symbols[i + 1])) continue;
            PairId p = make_pair_id(word.symbols[i], word.symbols[i + 1]);
            pair_counts_[p] += word.count;
            if (word.symbols[i] == merged || word.symbols[i + 1] == merged) pair_words_[p].push_back(w);
            changed->push_back(p);
        }
    }

    std::vector<Word> words_;
    std::vector<std::string> symbols_;
    std::unordered_map<std::string, Symbol> symbol_ids_;
    std::unordered_map<PairId, std::int64_t> pair_counts_;
    std::unordered_map<PairId, std::vector<std::uint32_t>> pair_words_;
    std::priority_queue<HeapEntry, std::vector<HeapEntry>, HeapOrder> heap_{HeapOrder{&symbols_}};
    std::vector<int> visited_;
    bool split_digits_;
    std::vector<bool> frozen_;  // per symbol
};

}  // namespace

Bpe Bpe::learn(const WordCounts& words, int num_merges, std::int64_t min_frequency, bool split_digits) {
    if (num_merges < 0) throw Error("BPE: number of merges is " + std::to_string(num_merges) + " (expected >= 0)");
    BpeLearner learner(words, split_digits);
    return Bpe(learner.learn(num_merges, min_frequency));
}

}  // namespace attend
