#include "train/train_batch.h"

#include <algorithm>

#include "train/token_batches.h"
#include "error.h"

namespace attend {

TrainBatch make_train_batch(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                            const std::vector<size_t>& examples, const BatchLayout& layout) {
    if (layout.num_steps == 1) throw Error("training batch: num_steps is 1, expected 0 (pad to the batch) or >= 2");
    TrainBatch b;
    b.B = static_cast<int>(examples.size());
    if (layout.num_steps > 0) {
        b.S = b.T = layout.num_steps;
    } else {
        for (size_t e : examples) {
            b.S = std::max(b.S, static_cast<int>(sources[e].size()) + 1);
            b.T = std::max(b.T, static_cast<int>(targets[e].size()) + 1);
        }
    }
    b.src.assign(size_t(b.B) * b.S, layout.pad);
    b.tgt_in.assign(size_t(b.B) * b.T, layout.pad);
    b.tgt_out.assign(size_t(b.B) * b.T, layout.pad);
    for (int r = 0; r < b.B; r++) {
        if (examples[r] >= sources.size() || examples[r] >= targets.size())
            throw Error("training batch: example " + std::to_string(examples[r]) + " is outside the corpus");
        std::vector<int> s = sources[examples[r]], y = targets[examples[r]];
        s.push_back(layout.eos);
        y.push_back(layout.eos);
        const int src_len = std::min(static_cast<int>(s.size()), b.S), tgt_len = std::min(static_cast<int>(y.size()), b.T);
        int* src_row = b.src.data() + size_t(r) * b.S;
        int* in_row = b.tgt_in.data() + size_t(r) * b.T;
        int* out_row = b.tgt_out.data() + size_t(r) * b.T;
        std::copy_n(s.begin(), src_len, src_row);
        std::copy_n(y.begin(), tgt_len, out_row);
        in_row[0] = layout.bos;
        std::copy_n(out_row, b.T - 1, in_row + 1);  // labels shifted right (padding stays padding)
        b.src_valid.push_back(src_len);
        b.tgt_valid.push_back(tgt_len);
        b.target_tokens += tgt_len;
    }
    return b;
}

TrainBatch shard_rows(const TrainBatch& whole, int rank, int ranks, int pad) {
    if (ranks < 1 || rank < 0 || rank >= ranks)
        throw Error("batch share: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
    const int begin = int(int64_t(whole.B) * rank / ranks), end = int(int64_t(whole.B) * (rank + 1) / ranks);
    TrainBatch b;
    b.B = end - begin;
    b.S = whole.S;
    b.T = whole.T;
    b.src.assign(whole.src.begin() + size_t(begin) * b.S, whole.src.begin() + size_t(end) * b.S);
    b.tgt_in.assign(whole.tgt_in.begin() + size_t(begin) * b.T, whole.tgt_in.begin() + size_t(end) * b.T);
    b.tgt_out.assign(whole.tgt_out.begin() + size_t(begin) * b.T, whole.tgt_out.begin() + size_t(end) * b.T);
    if (!whole.src_valid.empty()) b.src_valid.assign(whole.src_valid.begin() + begin, whole.src_valid.begin() + end);
    if (!whole.tgt_valid.empty()) b.tgt_valid.assign(whole.tgt_valid.begin() + begin, whole.tgt_valid.begin() + end);
    for (int v : b.tgt_valid) b.target_tokens += v;
    b.row_begin = begin;
    b.total_rows = whole.B;
    for (int y : whole.tgt_out) b.global_labels += y != pad;
    b.global_target_tokens = whole.target_tokens;
    return b;
}

std::vector<std::vector<size_t>> shuffled_batches(size_t n, int batch_size, uint64_t seed, int64_t epoch) {
    if (batch_size < 1) throw Error("batches: batch_size is " + std::to_string(batch_size) + ", expected >= 1");
    std::vector<size_t> order = random_permutation(n, seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(epoch) + 1);
    std::vector<std::vector<size_t>> batches;
    for (size_t start = 0; start < n; start += static_cast<size_t>(batch_size))
        batches.emplace_back(order.begin() + start, order.begin() + std::min(n, start + static_cast<size_t>(batch_size)));
    return batches;
}

}  // namespace attend
