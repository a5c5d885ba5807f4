// One teacher-forced training batch of a translation corpus, in either of the two layouts the trainer uses:
//   padded to the batch  sources + <eos>; decoder input <bos> + target; labels target + <eos>; each side padded
//                        to its longest row (length-bucketed token batches, Multi30K)
//   fixed num_steps      the seeds' build_array_nmt: source + <eos> and target + <eos> truncated / padded to exactly
//                        num_steps; decoder input <bos> + labels[:-1] (d2l's dec_input = cat([bos, Y[:, :-1]]))
// Valid lengths count the non-padding entries (the seeds' valid_len).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attend {

struct TrainBatch {
    int B = 0, S = 0, T = 0;
    std::vector<int> src;      // [B, S]
    std::vector<int> tgt_in;   // [B, T]
    std::vector<int> tgt_out;  // [B, T] labels (padding: pad)
    std::vector<int> src_valid, tgt_valid;  // [B]
    int64_t target_tokens = 0;              // sum of tgt_valid
    // Data-parallel share (shard_rows): rows [row_begin, row_begin + B) of a whole batch of total_rows rows, padded to
    // the whole batch's S and T; global_labels: the non-pad labels of the whole batch (the loss's denominator),
    // global_target_tokens its sum of tgt_valid. total_rows 0: this is the whole batch.
    int row_begin = 0, total_rows = 0;
    int64_t global_labels = 0, global_target_tokens = 0;
};

struct BatchLayout {
    int pad = 1, bos = 2, eos = 3;
    int num_steps = 0;  // 0: pad to the batch's longest row; > 0: truncate / pad every row to num_steps
};

// Rows `examples` of sources / targets (ids without specials).
TrainBatch make_train_batch(const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& targets,
                            const std::vector<size_t>& examples, const BatchLayout& layout);

// Rank `rank` of `ranks`'s share of `whole`: rows [rank * B / ranks, (rank + 1) * B / ranks), with the whole batch's
// padded lengths and label counts (labels equal to `pad` are not counted). A share may have no rows.
TrainBatch shard_rows(const TrainBatch& whole, int rank, int ranks, int pad);

// The seeds' DataLoader(shuffle=True) over n examples: a fresh permutation per (seed, epoch) cut into batches of
// batch_size (the last one shorter).
std::vector<std::vector<size_t>> shuffled_batches(size_t n, int batch_size, uint64_t seed, int64_t epoch);

}  // namespace attend
