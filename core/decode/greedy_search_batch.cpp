#include "decode/greedy_search_batch.h"

#include "decode/logits_processor.h"

#include "error.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"

#include <numeric>
#include <string>

namespace attend {

std::vector<Hypothesis> greedy_search_batch(StepModel& model, const std::vector<SearchOptions>& rows) {
    const int B = static_cast<int>(rows.size());
    const int V = model.vocab_size();
    std::vector<LogitsProcessors> processors(B);
    for (int i = 0; i < B; ++i) {
        if (!rows[i].prefix.empty() || rows[i].alternatives != 0)
            throw Error("batched greedy search keeps no target prefix nor alternatives: use greedy_search");
        if (rows[i].max_length < 1)
            throw Error("greedy search: max_length of sentence " + std::to_string(i + 1) + " must be at least 1");
        processors[i] = make_logits_processors(rows[i], V);
    }
    std::vector<Hypothesis> hyps(B);
    std::vector<int> sentence_of_row(B), last(B), keep;
    std::iota(sentence_of_row.begin(), sentence_of_row.end(), 0);
    for (int i = 0; i < B; ++i) last[i] = rows[i].bos_id;
    std::vector<float> logits(static_cast<size_t>(B) * V);
    keep.reserve(B);
    for (int n = B; n > 0;) {
        model.step(logits.data(), last.data(), n);
        keep.clear();
        for (int r = 0; r < n; ++r) {
            const int i = sentence_of_row[r];
            Hypothesis& h = hyps[i];
            float* row = logits.data() + static_cast<size_t>(r) * V;
            apply_logits_processors(processors[i], row, h.tokens.data(), static_cast<int>(h.tokens.size()));
            const int token = argmax(row, V);
            h.tokens.push_back(token);
            h.log_prob += log_softmax_at(row, V, token);
            if (token == rows[i].eos_id)
                h.finished = true;
            else if (static_cast<int>(h.tokens.size()) < rows[i].max_length)
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
    for (int i = 0; i < B; ++i)
        hyps[i].score = normalized_score(hyps[i].log_prob, static_cast<int>(hyps[i].tokens.size()), rows[i].length_penalty);
    return hyps;
}

std::vector<Hypothesis> greedy_search_batch(StepModel& model, const std::vector<int>& max_lengths,
                                            const SearchOptions& options) {
    std::vector<SearchOptions> rows(max_lengths.size(), options);
    for (size_t i = 0; i < rows.size(); ++i) rows[i].max_length = max_lengths[i];
    return greedy_search_batch(model, rows);
}

}  // namespace attend
