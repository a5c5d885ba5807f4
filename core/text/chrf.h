// chrF as sacreBLEU computes it by default (CHRF(): char_order 6, word_order 0, beta 2, whitespace removed,
// no eps smoothing), one reference per hypothesis:
//   - each line loses its whitespace (Python's str.split), then yields character (code point) n-grams,
//     n = 1..6; per order: hypothesis n-grams (counted only when the reference has n-grams of that order),
//     reference n-grams, and matches (clipped: min of the two counts per n-gram);
//   - the statistics are summed over the corpus;
//   - precision and recall are each averaged over the orders where both sides have n-grams, and the score is
//     100 * (1 + beta^2) P R / (beta^2 P + R) of those averages.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attend {

struct CorpusChrf {
    static constexpr int kOrder = 6;
    static constexpr int kBeta = 2;
    double score = 0;                                       // 0..100
    double precision = 0, recall = 0;                       // averaged over the effective orders, 0..1
    std::array<std::int64_t, kOrder> hyp{}, ref{}, match{};  // n-gram counts per order (n = 1..6)
    int effective_order = 0;
    // "chrF2 = 61.23" (sacreBLEU's score line)
    std::string format() const;
};

// Hypotheses and references must have the same count (attend::Error otherwise); invalid UTF-8 throws.
CorpusChrf corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

// sacreBLEU 2.x's signature of this chrF against one reference, with Attend's version (text/bleu.h's
// metrics_version) in place of sacreBLEU's; `lowercased`: both sides were lowercased before scoring.
// "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:attend-0.1.0"
std::string chrf_signature(bool lowercased);

}  // namespace attend
