#include "decode/greedy_search_batch.h"

#include "decode/repetition_controls.h"

#include "error.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"

#include <numeric>
#include <string>

namespace attend {

std::vector<Hypothesis> greedy_search_batch(StepModel& model, const std::vector<int>& max_lengths,
                                            const SearchOptions& options) {
    if (!options.prefix.empty() || options.alternatives != 0)
        throw Error("batched greedy search keeps no target prefix nor alternatives: use greedy_search");
    const int B = static_cast<int>(max_lengths.size());
    for (int i = 0; i < B; ++i)
        if (max_lengths[i] < 1)
            throw Error("greedy search: max_length of sentence " + std::to_string(i + 1) + " must be at least 1");
    const int V = model.vocab_size();
    std::vector<Hypothesis> hyps(B);
    std::vector<int> sentence_of_row(B), last(B, options.bos_id), keep;
    std::iota(sentence_of_row.begin(), sentence_of_row.end(), 0);
    std::vector<float> logits(static_cast<size_t>(B) * V);
    RepetitionControls controls(options, V);
    keep.reserve(B);
    for (int n = B; n > 0;) {
        model.step(logits.data(), last.data(), n);
        keep.clear();
        for (int r = 0; r < n; ++r) {
            Hypothesis& h = hyps[sentence_of_row[r]];
            float* row = logits.data() + static_cast<size_t>(r) * V;
            if (controls.active()) controls.apply(row, h.tokens.data(), static_cast<int>(h.tokens.size()));
            const int token = argmax(row, V);
            h.tokens.push_back(token);
            h.log_prob += log_softmax_at(row, V, token);
            if (token == options.eos_id)
                h.finished = true;
            else if (static_cast<int>(h.tokens.size()) < max_lengths[sentence_of_row[r]])
                keep.push_back(r);
        }
        const int n_next = static_cast<int>(keep.size());
        // The rows that go on, in order: the model drops the others' caches (gathering rows in place is safe
        // because keep is increasing).
        if (n_next < n && n_next > 0) model.select(keep.data(), n_next);
        for (int k = 0; k < n_next; ++k) {
            sentence_of_row[k] = sentence_of_row[keep[k]];
            last[k] = hyps[sentence_of_row[k]].tokens.back();
        }
        n = n_next;
    }
    for (Hypothesis& h : hyps)
        h.score = normalized_score(h.log_prob, static_cast<int>(h.tokens.size()), options.length_penalty);
    return hyps;
}

}  // namespace attend
