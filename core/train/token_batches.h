// Length-bucketed batches under a token budget, reshuffled every epoch: examples of similar length share a
// batch so little of the budget goes to padding. Natively deterministic for a (seed, epoch): the shuffle
// uses std::mt19937_64 with its own Fisher-Yates and bounded draws, not std::shuffle.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attend {

struct BatchingOptions {
    std::size_t max_tokens = 4096;  // rows x longest sequence (source or target), padding included
    std::uint64_t seed = 1;
};

struct TokenBatch {
    std::vector<std::size_t> examples;  // indices into the data set
    int max_source_len = 0, max_target_len = 0;
    std::size_t padded_tokens() const;  // examples.size() * max(max_source_len, max_target_len)
};

// Shuffles the examples, sorts them by length (max of source and target; ties stay shuffled), cuts the
// sorted run into batches that fit the budget, and shuffles the batch order. Every example lands in exactly
// one batch; one longer than the budget throws attend::Error naming it.
std::vector<TokenBatch> make_token_batches(const std::vector<int>& source_lengths, const std::vector<int>& target_lengths,
                                           const BatchingOptions& options, std::uint64_t epoch);

struct PaddedBatch {
    int rows = 0, steps = 0;
    std::vector<int> ids;         // [rows, steps] row-major
    std::vector<int> valid_lens;  // [rows]
};

// The chosen sequences, padded with pad_id to the longest of them.
PaddedBatch pad_batch(const std::vector<std::vector<int>>& sequences, const std::vector<std::size_t>& examples, int pad_id);

// A uniformly random permutation of 0..n-1 (Fisher-Yates on std::mt19937_64).
std::vector<std::size_t> random_permutation(std::size_t n, std::uint64_t seed);

}  // namespace attend
