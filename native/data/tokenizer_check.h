// The tokenizer's acceptance check: lowercase + normalize + tokenize each raw Multi30K file and compare it
// line by line with the official tok/*.lc.norm.tok.* file.
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

TokenizerCheck check_multi30k_tokenizer(const std::string& data_dir, const std::string& split, Lang lang,
                                        std::size_t max_mismatches = 5);

}  // namespace attend
