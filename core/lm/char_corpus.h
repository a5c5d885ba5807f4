// The seeds' character corpus (d2l 8.2/8.3, The Time Machine) and their two minibatch iterators (d2l 8.3).
//
// Text: each line becomes re.sub('[^A-Za-z]+', ' ', line).strip().lower(); the tokens are the characters of the
// lines, which are then concatenated with nothing between them (d2l's corpus = [vocab[t] for line in tokens for t
// in line]); an empty line adds nothing. The vocabulary is d2l's Vocab(tokens): "<unk>" first, then the characters
// by descending count, ties in the order first seen (text/vocab.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "text/vocab.h"

namespace attend {

// One line as d2l's read_time_machine cleans it (ASCII letters lowercased; every run of other bytes one space;
// no space at either end).
std::string d2l_clean_line(const std::string& line);

// The whole text's lines cleaned (split at "\n", "\r\n" or "\r", as Python's universal newlines).
std::vector<std::string> d2l_clean_lines(const std::string& text);

// Vocab over the characters of the cleaned lines.
Vocab char_vocab(const std::vector<std::string>& lines);

// The lines' characters as ids, concatenated; characters outside vocab are <unk> (0).
std::vector<int> char_corpus(const std::vector<std::string>& lines, const Vocab& vocab);

// One minibatch: X and Y [batch, steps] row-major, Y the next token of each X.
struct LmBatch {
    int batch = 0, steps = 0;
    std::vector<int> X, Y;
};

// d2l's seq_data_iter_sequential with its random offset given: offset in [0, steps] (d2l draws
// random.randint(0, num_steps)). The corpus after the offset is cut into `batch` rows read side by side, so
// batch i's row b continues batch i-1's row b (the hidden state carries over).
std::vector<LmBatch> seq_data_iter_sequential(const std::vector<int>& corpus, int batch, int steps, int offset);

// d2l's seq_data_iter_random with its random draws given: offset in [0, steps - 1] (random.randint(0, num_steps
// - 1)) and order, a permutation of [0, num_subseqs) (random.shuffle of the subsequence starts), where
// num_subseqs = (corpus.size() - offset - 1) / steps. Batches are independent (d2l resets the state).
std::vector<LmBatch> seq_data_iter_random(const std::vector<int>& corpus, int batch, int steps, int offset,
                                          const std::vector<int>& order);

// The random draws of either iterator from a seeded generator (std::mt19937_64; not Python's, which a test
// cannot share): the offset, and for the random iterator a Fisher-Yates shuffled order.
int lm_draw_offset(uint64_t seed, int max_offset);
std::vector<int> lm_draw_order(uint64_t seed, int n);

}  // namespace attend
