// The tokenizer's acceptance checks on the raw Multi30K files:
//  - normalize + tokenize each raw line (lowercasing first, or in cased mode lowercasing the cased output)
//    and compare it line by line with the official tok/*.lc.norm.tok.* file;
//  - round trip: detokenize(cased tokenize(raw line)) compared with the raw line itself, which is what a
//    cased model's output can at best look like.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "text/lang.h"

namespace attend {

struct TokenizerMismatch {
    std::size_t line;  // 1-based
    std::string raw, expected, produced;
};

struct TokenizerCheck {
    std::string split;
    Lang lang;
    std::size_t lines = 0, matching = 0;
    std::vector<TokenizerMismatch> mismatches;  // the first few
    double rate() const { return lines ? static_cast<double>(matching) / static_cast<double>(lines) : 0.0; }
};

// cased: tokenize without lowercasing (MosesPipelineOptions::lowercase = false), then lowercase the tokens to
// compare: the cased pipeline splits exactly where the official lowercase one does.
TokenizerCheck check_multi30k_tokenizer(const std::string& data_dir, const std::string& split, Lang lang,
                                        std::size_t max_mismatches = 5, bool cased = false);

// detokenize (first letter kept as it is) of the cased pipeline's tokens against the raw line.
TokenizerCheck check_multi30k_round_trip(const std::string& data_dir, const std::string& split, Lang lang,
                                         std::size_t max_mismatches = 5);

}  // namespace attend
