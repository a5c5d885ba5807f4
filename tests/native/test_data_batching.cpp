#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "train/token_batches.h"
#include "error.h"

using namespace attend;

namespace {

void lengths(std::vector<int>& source, std::vector<int>& target, std::size_t n) {
    std::mt19937 rng(3);
    for (std::size_t i = 0; i < n; ++i) {
        source.push_back(1 + static_cast<int>(rng() % 40));
        target.push_back(1 + static_cast<int>(rng() % 45));
    }
}

}  // namespace

TEST_CASE("token batches: every example once, budget kept, similar lengths together") {
    std::vector<int> source, target;
    lengths(source, target, 3000);
    BatchingOptions options;
    options.max_tokens = 1024;
    options.seed = 42;
    std::vector<TokenBatch> batches = make_token_batches(source, target, options, 0);
    std::vector<int> seen(source.size(), 0);
    std::size_t padded = 0, real = 0;
    for (const TokenBatch& batch : batches) {
        CHECK(batch.padded_tokens() <= options.max_tokens);
        int longest = 0;
        for (std::size_t e : batch.examples) {
            ++seen[e];
            longest = std::max({longest, source[e], target[e]});
            real += static_cast<std::size_t>(std::max(source[e], target[e]));
            CHECK(source[e] <= batch.max_source_len);
            CHECK(target[e] <= batch.max_target_len);
        }
        CHECK(longest == std::max(batch.max_source_len, batch.max_target_len));
        padded += batch.padded_tokens();
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
    CHECK(static_cast<double>(real) / static_cast<double>(padded) > 0.95);  // bucketing keeps padding small
}

TEST_CASE("token batches: deterministic per (seed, epoch), reshuffled across epochs") {
    std::vector<int> source, target;
    lengths(source, target, 500);
    BatchingOptions options;
    options.max_tokens = 256;
    const auto order = [&](std::uint64_t seed, std::uint64_t epoch) {
        options.seed = seed;
        std::vector<std::size_t> flat;
        for (const TokenBatch& b : make_token_batches(source, target, options, epoch))
            flat.insert(flat.end(), b.examples.begin(), b.examples.end());
        return flat;
    };
    CHECK(order(1, 0) == order(1, 0));
    CHECK(order(1, 0) != order(1, 1));
    CHECK(order(1, 0) != order(2, 0));
}

TEST_CASE("token batches: errors for an over-long example and mismatched inputs") {
    BatchingOptions options;
    options.max_tokens = 10;
    CHECK_THROWS_WITH_AS(make_token_batches({3, 11}, {3, 4}, options, 0),
                         "batching: example 1 has 11 tokens, more than the budget of 10 per batch", Error);
    CHECK_THROWS_AS(make_token_batches({3}, {3, 4}, options, 0), Error);
    CHECK(make_token_batches({}, {}, options, 0).empty());
}

TEST_CASE("pad_batch and random_permutation") {
    std::vector<std::vector<int>> sequences = {{5, 6, 7}, {8}, {9, 10}};
    PaddedBatch batch = pad_batch(sequences, {2, 0, 1}, 0);
    CHECK(batch.rows == 3);
    CHECK(batch.steps == 3);
    CHECK(batch.ids == std::vector<int>{9, 10, 0, 5, 6, 7, 8, 0, 0});
    CHECK(batch.valid_lens == std::vector<int>{2, 3, 1});
    CHECK_THROWS_AS(pad_batch(sequences, {3}, 0), Error);

    std::vector<std::size_t> permutation = random_permutation(100, 9);
    std::vector<std::size_t> sorted = permutation;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < 100; ++i) CHECK(sorted[i] == i);
    CHECK(permutation != sorted);
    CHECK(permutation == random_permutation(100, 9));
}
