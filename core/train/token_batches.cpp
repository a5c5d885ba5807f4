#include "train/token_batches.h"

#include <algorithm>
#include <limits>
#include <random>

#include "error.h"

namespace attend {
namespace {

// Uniform in [0, bound) without modulo bias (rejection on the top of the range).
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
    std::uint64_t draw;
    do draw = rng();
    while (draw >= limit);
    return draw % bound;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finalizer: spreads (seed, epoch) over the state space
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void shuffle(std::vector<std::size_t>& items, std::mt19937_64& rng) {
    for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[uniform_below(rng, i)]);
}

}  // namespace

std::size_t TokenBatch::padded_tokens() const {
    return examples.size() * static_cast<std::size_t>(std::max(max_source_len, max_target_len));
}

std::vector<std::size_t> random_permutation(std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::mt19937_64 rng(mix(seed));
    shuffle(order, rng);
    return order;
}

std::vector<TokenBatch> make_token_batches(const std::vector<int>& source_lengths, const std::vector<int>& target_lengths,
                                           const BatchingOptions& options, std::uint64_t epoch) {
    if (source_lengths.size() != target_lengths.size())
        throw Error("batching: " + std::to_string(source_lengths.size()) + " source lengths but " +
                    std::to_string(target_lengths.size()) + " target lengths (expected one of each per example)");
    if (options.max_tokens == 0) throw Error("batching: max_tokens is 0 (expected > 0)");
    const std::size_t n = source_lengths.size();
    const auto length = [&](std::size_t i) { return std::max(source_lengths[i], target_lengths[i]); };
    for (std::size_t i = 0; i < n; ++i) {
        if (source_lengths[i] < 0 || target_lengths[i] < 0)
            throw Error("batching: example " + std::to_string(i) + " has a negative length");
        if (static_cast<std::size_t>(length(i)) > options.max_tokens)
            throw Error("batching: example " + std::to_string(i) + " has " + std::to_string(length(i)) +
                        " tokens, more than the budget of " + std::to_string(options.max_tokens) + " per batch");
    }
    std::mt19937_64 rng(mix(mix(options.seed) ^ epoch));
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    shuffle(order, rng);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return length(a) < length(b); });

    std::vector<TokenBatch> batches;
    TokenBatch current;
    for (std::size_t example : order) {
        int source_len = std::max(current.max_source_len, source_lengths[example]);
        int target_len = std::max(current.max_target_len, target_lengths[example]);
        std::size_t tokens = (current.examples.size() + 1) * static_cast<std::size_t>(std::max(source_len, target_len));
        if (!current.examples.empty() && tokens > options.max_tokens) {
            batches.push_back(std::move(current));
            current = TokenBatch();
            source_len = source_lengths[example];
            target_len = target_lengths[example];
        }
        current.examples.push_back(example);
        current.max_source_len = source_len;
        current.max_target_len = target_len;
    }
    if (!current.examples.empty()) batches.push_back(std::move(current));

    std::vector<std::size_t> batch_order(batches.size());
    for (std::size_t i = 0; i < batches.size(); ++i) batch_order[i] = i;
    shuffle(batch_order, rng);
    std::vector<TokenBatch> shuffled;
    shuffled.reserve(batches.size());
    for (std::size_t i : batch_order) shuffled.push_back(std::move(batches[i]));
    return shuffled;
}

PaddedBatch pad_batch(const std::vector<std::vector<int>>& sequences, const std::vector<std::size_t>& examples, int pad_id) {
    PaddedBatch batch;
    batch.rows = static_cast<int>(examples.size());
    for (std::size_t example : examples) {
        if (example >= sequences.size())
            throw Error("pad_batch: example " + std::to_string(example) + " does not exist (data set has " +
                        std::to_string(sequences.size()) + ")");
        batch.steps = std::max(batch.steps, static_cast<int>(sequences[example].size()));
    }
    batch.ids.assign(static_cast<std::size_t>(batch.rows) * batch.steps, pad_id);
    for (int r = 0; r < batch.rows; ++r) {
        const std::vector<int>& sequence = sequences[examples[r]];
        std::copy(sequence.begin(), sequence.end(), batch.ids.begin() + static_cast<std::ptrdiff_t>(r) * batch.steps);
        batch.valid_lens.push_back(static_cast<int>(sequence.size()));
    }
    return batch;
}

}  // namespace attend
