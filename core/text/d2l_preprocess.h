// The d2l preprocessing for the Tatoeba English-French data (seeds 000/004): preprocess_nmt, word
// tokenization by single spaces, truncate_pad, and build_array_nmt (ids + <eos>, padded, valid lengths).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "text/vocab.h"

namespace attend {

// Non-breaking spaces (U+202F, U+00A0) to spaces, lowercase, and a space before each of , . ! ? that does
// not follow a space (not at position 0). Throws attend::Error on invalid UTF-8 (byte offset).
std::string preprocess_nmt(std::string_view text);

// Python's line.split(' '): empty fields are kept, as d2l does.
std::vector<std::string> split_words(std::string_view line);

// Cuts to num_steps or appends padding_token up to num_steps.
std::vector<int> truncate_pad(std::vector<int> line, int num_steps, int padding_token);

struct NmtArray {
    int rows = 0, num_steps = 0;
    std::vector<int> ids;         // [rows, num_steps] row-major
    std::vector<int> valid_lens;  // [rows]: entries that are not <pad>
};

// Each line to ids, <eos> appended, truncated/padded to num_steps (vocab must hold <pad> and <eos>).
NmtArray build_array_nmt(const std::vector<std::vector<std::string>>& lines, const Vocab& vocab, int num_steps);

}  // namespace attend
