#include "decode/beam_search.h"

#include "decode/logits_processor.h"

#include "error.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace attend {
namespace {

struct Candidate {
    float log_prob;  // parent's log_prob + this token's
    int parent;      // index into the live hypotheses
    int token;
    float token_log_prob;  // this token's alone
};

// Higher log-probability first; ties go to the older parent, then the lower token id, so that the order is
// deterministic and beam size 1 picks exactly what argmax picks.
bool better(const Candidate& a, const Candidate& b) {
    if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
    if (a.parent != b.parent) return a.parent < b.parent;
    return a.token < b.token;
}

// A hypothesis that finished outranks one cut by max_length (a cut one is often a loop that would never end).
bool ranks_above(const Hypothesis& a, const Hypothesis& b) {
    if (a.finished != b.finished) return a.finished;
    return a.score > b.score;
}

}  // namespace

std::vector<Hypothesis> beam_search(StepModel& model, const SearchOptions& options) {
    if (options.beam_size < 1) throw Error("beam search: beam_size must be at least 1");
    if (options.max_length < 1) throw Error("beam search: max_length must be at least 1");
    const int K = options.beam_size;
    const int V = model.vocab_size();
    check_prefix(options, V);
    const int P = static_cast<int>(options.prefix.size());
    const int k_alt = std::min(options.alternatives, V);
    // 2K candidates per step: even if K of them end in <eos>, K remain to continue the beam.
    const int per_row = std::min(2 * K, V);

    // Every buffer is sized here: a step allocates nothing but the hypotheses that finish.
    std::vector<Hypothesis> live(K), next_live(K), finished;
    // Finished, but rejected by a finish rule (SearchOptions::close_quotes): set aside, and kept only while the search
    // without the rules would still be running.
    std::vector<Hypothesis> set_aside;
    int plain_stop = -1;  // the step at which the search without it would have stopped
    for (Hypothesis& h : live) h.tokens.reserve(options.max_length);
    for (Hypothesis& h : next_live) h.tokens.reserve(options.max_length);
    int n_live = 1;  // live[0]: the empty hypothesis
    std::vector<int> last_tokens(K, options.bos_id), parents(K);
    std::vector<float> logits(static_cast<size_t>(K) * V), log_probs(V), top_values(per_row);
    std::vector<int> top_indices(per_row);
    // Each live row's alternatives (SearchOptions::alternatives), for the hypotheses that continue it.
    std::vector<Hypothesis> row_alternatives(k_alt > 0 ? K : 0);
    std::vector<float> raw;  // a forced step's logits before the rules
    LogitsProcessors processors = make_logits_processors(options, V);
    const FinishRules finish_rules = make_finish_rules(options);
    std::vector<Candidate> candidates;
    candidates.reserve(static_cast<size_t>(K) * per_row);

    for (int t = 0; t < options.max_length && n_live > 0; t++) {
        const int n = n_live;
        model.step(logits.data(), last_tokens.data(), n);

        candidates.clear();
        const bool forced = t < P;  // then n is 1: one hypothesis, the prefix so far
        for (int i = 0; i < n; i++) {
            float* row = logits.data() + static_cast<size_t>(i) * V;
            if (forced && !processors.empty()) raw.assign(row, row + V);
            apply_logits_processors(processors, row, live[i].tokens.data(), static_cast<int>(live[i].tokens.size()));
            log_softmax_forward(log_probs.data(), row, 1, V);
            if (k_alt > 0) {
                Hypothesis& a = row_alternatives[i];
                a.token_probs.clear();
                a.alternative_ids.clear();
                a.alternative_probs.clear();
                append_alternatives(a, log_probs.data(), V, k_alt, 0.0f, /*log_probs=*/true);
            }
            if (forced) {
                const int token = options.prefix[t];
                float lp = log_probs[token];
                // A forced token the rules forbid is scored by the model's own distribution.
                if (lp == -std::numeric_limits<float>::infinity() && !raw.empty()) lp = log_softmax_at(raw.data(), V, token);
                candidates.push_back({live[i].log_prob + lp, i, token, lp});
                continue;
            }
            topk(top_indices.data(), top_values.data(), log_probs.data(), V, per_row);
            // Tokens the rules forbid (-infinity) are never candidates.
            for (int j = 0; j < per_row && top_values[j] != -std::numeric_limits<float>::infinity(); j++)
                candidates.push_back({live[i].log_prob + top_values[j], i, top_indices[j], top_values[j]});
        }
        // A hypothesis continues its parent's alternatives with those of the row it was chosen from.
        auto extend_alternatives = [&](Hypothesis& h, const Hypothesis& parent, const Candidate& c) {
            if (k_alt == 0) return;
            const Hypothesis& a = row_alternatives[c.parent];
            h.token_probs.assign(parent.token_probs.begin(), parent.token_probs.end());
            h.token_probs.push_back(std::exp(c.token_log_prob));
            h.alternative_ids.assign(parent.alternative_ids.begin(), parent.alternative_ids.end());
            h.alternative_ids.insert(h.alternative_ids.end(), a.alternative_ids.begin(), a.alternative_ids.end());
            h.alternative_probs.assign(parent.alternative_probs.begin(), parent.alternative_probs.end());
            h.alternative_probs.insert(h.alternative_probs.end(), a.alternative_probs.begin(), a.alternative_probs.end());
        };
        std::sort(candidates.begin(), candidates.end(), better);

        int n_next = 0;
        for (size_t rank = 0; rank < candidates.size() && n_next < K; rank++) {
            const Candidate& c = candidates[rank];
            const std::vector<int>& prefix = live[c.parent].tokens;
            if (c.token == options.eos_id) {
                // Only an <eos> among the K best candidates finishes a hypothesis (as in fairseq/CTranslate2).
                if (static_cast<int>(rank) < K) {
                    Hypothesis h;
                    h.tokens.reserve(prefix.size() + 1);
                    h.tokens.assign(prefix.begin(), prefix.end());
                    h.tokens.push_back(c.token);
                    h.log_prob = c.log_prob;
                    h.finished = true;
                    h.score = normalized_score(h.log_prob, static_cast<int>(h.tokens.size()), options.length_penalty);
                    extend_alternatives(h, live[c.parent], c);
                    if (std::all_of(finish_rules.begin(), finish_rules.end(),
                                    [&](const auto& r) { return r->accepts(h.tokens); }))
                        finished.push_back(std::move(h));
                    else if (plain_stop < 0)
                        set_aside.push_back(std::move(h));
                }
                continue;
            }
            Hypothesis& h = next_live[n_next];
            h.tokens.assign(prefix.begin(), prefix.end());
            h.tokens.push_back(c.token);
            h.log_prob = c.log_prob;
            h.finished = false;
            h.score = normalized_score(h.log_prob, static_cast<int>(h.tokens.size()), options.length_penalty);
            extend_alternatives(h, live[c.parent], c);
            parents[n_next] = c.parent;
            last_tokens[n_next] = c.token;
            n_next++;
        }
        if (plain_stop < 0 && static_cast<int>(finished.size() + set_aside.size()) >= K) {
            plain_stop = t;
            // Where the best of them passes the rules, that search's answer stands.
            auto by_score = [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; };
            if (!finished.empty() &&
                (set_aside.empty() || std::max_element(finished.begin(), finished.end(), by_score)->score >=
                                          std::max_element(set_aside.begin(), set_aside.end(), by_score)->score))
                break;
        }
        if (static_cast<int>(finished.size()) >= K) break;
        if (plain_stop >= 0 && t - plain_stop >= options.close_steps) break;
        std::swap(live, next_live);
        n_live = n_next;
        if (n_live > 0) model.select(parents.data(), n_live);
    }
    live.resize(n_live);

    // Those set aside come after every one that passed the rules, then those cut by max_length, which
    // compete only when fewer than K finished.
    std::stable_sort(finished.begin(), finished.end(), ranks_above);
    std::stable_sort(set_aside.begin(), set_aside.end(), ranks_above);
    for (Hypothesis& h : set_aside) finished.push_back(std::move(h));
    if (static_cast<int>(finished.size()) < K) {
        const size_t cut = finished.size();
        for (Hypothesis& h : live) finished.push_back(std::move(h));
        std::stable_sort(finished.begin() + static_cast<std::ptrdiff_t>(cut), finished.end(), ranks_above);
    }
    // But where the only hypothesis that finished is the empty translation (<eos> first), a cut one that scores
    // better comes first: a length limit too short for any real translation then gives the best cut one, as greedy
    // search does, instead of nothing.
    if (finished.size() > 1 && finished[0].finished && finished[0].tokens.size() == 1 && !finished[1].finished &&
        finished[1].score > finished[0].score)
        std::swap(finished[0], finished[1]);
    if (static_cast<int>(finished.size()) > K) finished.resize(K);
    return finished;
}

}  // namespace attend
