// Greedy and beam search over synthetic models whose logits depend on the whole prefix, so that a wrong cache
// reordering (select) changes the results. Brute-force enumeration is the reference.
#include <doctest/doctest.h>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace attend;

namespace {

constexpr int BOS = 2, EOS = 3;

// Logits are a pure function of (seed, prefix): a hash of the prefix seeds a small generator.
std::vector<float> prefix_logits(uint64_t seed, const std::vector<int>& prefix, int V, float eos_bias) {
    uint64_t h = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
    for (int t : prefix) h = (h ^ static_cast<uint64_t>(t + 1)) * 0x100000001B3ull;
    std::vector<float> logits(V);
    for (int v = 0; v < V; v++) {
        h ^= h >> 33; h *= 0xff51afd7ed558ccdull; h ^= h >> 33;
        logits[v] = static_cast<float>((h >> 11) * (1.0 / 9007199254740992.0)) * 4.0f - 2.0f;
    }
    logits[EOS] += eos_bias * static_cast<float>(prefix.size());
    return logits;
}

// Keeps each live hypothesis' history, the way a real model keeps key/value caches: step() appends the tokens it
// is given (the ones chosen last step), select() reorders. Logits depend on the whole history, so a search that
// reorders wrongly produces results that disagree with the brute-force reference.
class HistoryModel : public StepModel {
public:
    HistoryModel(uint64_t seed, int V, float eos_bias) : seed_(seed), V_(V), eos_bias_(eos_bias), histories_(1) {}
    int vocab_size() const override { return V_; }
    void step(float* logits, const int* last_tokens, int n) override {
        REQUIRE(n == static_cast<int>(histories_.size()));
        for (int i = 0; i < n; i++) {
            if (started_) histories_[i].push_back(last_tokens[i]);
            else REQUIRE(last_tokens[i] == BOS);
            std::vector<float> l = prefix_logits(seed_, histories_[i], V_, eos_bias_);
            std::copy(l.begin(), l.end(), logits + static_cast<size_t>(i) * V_);
        }
        started_ = true;
    }
    void select(const int* parents, int n) override {
        std::vector<std::vector<int>> next(n);
        for (int i = 0; i < n; i++) {
            REQUIRE(parents[i] >= 0);
            REQUIRE(parents[i] < static_cast<int>(histories_.size()));
            next[i] = histories_[parents[i]];
        }
        histories_ = std::move(next);
    }

private:
    uint64_t seed_;
    int V_;
    float eos_bias_;
    std::vector<std::vector<int>> histories_;
    bool started_ = false;
};

double log_prob_of(uint64_t seed, const std::vector<int>& tokens, int V, float eos_bias) {
    double total = 0;
    std::vector<int> prefix;
    for (int tok : tokens) {
        std::vector<float> l = prefix_logits(seed, prefix, V, eos_bias);
        double m = *std::max_element(l.begin(), l.end()), s = 0;
        for (float x : l) s += std::exp(static_cast<double>(x) - m);
        total += l[tok] - m - std::log(s);
        prefix.push_back(tok);
    }
    return total;
}

struct Best { std::vector<int> tokens; double score = -INFINITY; };

SearchOptions search_options(int max_length, int beam_size) {
    SearchOptions opt;
    opt.max_length = max_length;
    opt.beam_size = beam_size;
    opt.bos_id = BOS;
    opt.eos_id = EOS;
    return opt;
}

void enumerate(uint64_t seed, int V, float eos_bias, int max_len, float alpha, std::vector<int>& prefix, Best& best) {
    if (static_cast<int>(prefix.size()) == max_len) return;
    for (int v = 0; v < V; v++) {
        prefix.push_back(v);
        if (v == EOS) {
            double lp = log_prob_of(seed, prefix, V, eos_bias);
            double score = alpha == 0 ? lp : lp / std::pow(static_cast<double>(prefix.size()), alpha);
            if (score > best.score) best = {prefix, score};
        } else {
            enumerate(seed, V, eos_bias, max_len, alpha, prefix, best);
        }
        prefix.pop_back();
    }
}

}  // namespace

TEST_CASE("beam size 1 gives exactly the greedy result") {
    for (uint64_t seed = 1; seed <= 20; seed++) {
        const SearchOptions opt = search_options(12, 1);
        HistoryModel a(seed, 9, 0.4f), b(seed, 9, 0.4f);
        Hypothesis greedy = greedy_search(a, opt);
        std::vector<Hypothesis> beam = beam_search(b, opt);
        REQUIRE(beam.size() == 1);
        CHECK(beam[0].tokens == greedy.tokens);
        CHECK(beam[0].log_prob == doctest::Approx(greedy.log_prob).epsilon(1e-6));
        CHECK(beam[0].finished == greedy.finished);
        CHECK(greedy.log_prob == doctest::Approx(log_prob_of(seed, greedy.tokens, 9, 0.4f)).epsilon(1e-5));
    }
}

TEST_CASE("a beam wide enough to keep every prefix finds the brute-force optimum") {
    // V = 5 with <eos> = 3: 4 continuing tokens, so 4^3 = 64 live prefixes at most for max_length 4.
    const int V = 5, max_len = 4;
    for (float alpha : {0.0f, 0.75f}) {
        for (uint64_t seed = 1; seed <= 10; seed++) {
            Best best;
            std::vector<int> prefix;
            enumerate(seed, V, 0.3f, max_len, alpha, prefix, best);
            REQUIRE(!best.tokens.empty());

            SearchOptions opt = search_options(max_len, 200);
            opt.length_penalty = alpha;
            HistoryModel model(seed, V, 0.3f);
            std::vector<Hypothesis> hyps = beam_search(model, opt);
            REQUIRE(!hyps.empty());
            CAPTURE(seed);
            CAPTURE(alpha);
            CHECK(hyps[0].finished);
            CHECK(hyps[0].tokens == best.tokens);
            CHECK(hyps[0].score == doctest::Approx(best.score).epsilon(1e-5));
            for (size_t i = 1; i < hyps.size(); i++)
                if (hyps[i].finished) CHECK(hyps[i - 1].score >= hyps[i].score);
        }
    }
}

TEST_CASE("every returned hypothesis carries its true log-probability and ends with <eos> when finished") {
    SearchOptions opt = search_options(10, 4);
    opt.length_penalty = 0.6f;
    HistoryModel model(42, 11, 0.25f);
    std::vector<Hypothesis> hyps = beam_search(model, opt);
    REQUIRE(hyps.size() == 4);
    for (const Hypothesis& h : hyps) {
        CHECK(h.log_prob == doctest::Approx(log_prob_of(42, h.tokens, 11, 0.25f)).epsilon(1e-5));
        if (h.finished) CHECK(h.tokens.back() == EOS);
        CHECK(std::count(h.tokens.begin(), h.tokens.end(), EOS) == (h.finished ? 1 : 0));
    }
}

namespace {
// d2l's beam search picture: greedy takes the locally best token and ends worse than a two-step look-ahead.
class TwoPathModel : public StepModel {
public:
    int vocab_size() const override { return 6; }
    void step(float* logits, const int* last, int n) override {
        for (int i = 0; i < n; i++) {
            float* l = logits + i * 6;
            std::fill(l, l + 6, -30.0f);
            if (last[i] == BOS) { l[4] = std::log(0.5f); l[5] = std::log(0.4f); l[EOS] = std::log(0.1f); }
            else if (last[i] == 4) { for (int v = 0; v < 6; v++) l[v] = std::log(1.0f / 6); }  // A: undecided
            else if (last[i] == 5) { l[EOS] = std::log(0.9f); l[4] = std::log(0.1f); }            // B: confident end
            else { l[EOS] = 0.0f; }
        }
    }
    void select(const int*, int) override {}
};
}  // namespace

TEST_CASE("beam search beats greedy where the locally best token leads nowhere") {
    SearchOptions opt = search_options(2, 1);
    TwoPathModel model;
    Hypothesis greedy = greedy_search(model, opt);
    opt.beam_size = 2;
    std::vector<Hypothesis> beam = beam_search(model, opt);
    CHECK(greedy.tokens[0] == 4);
    CHECK(beam[0].tokens == std::vector<int>{5, EOS});
    CHECK(beam[0].log_prob == doctest::Approx(std::log(0.4 * 0.9)).epsilon(1e-5));
    CHECK(beam[0].log_prob > greedy.log_prob);
}

namespace {

// Logits that depend only on the position: first[v] at the first step, then[v] at every later one.
class PositionModel : public StepModel {
public:
    PositionModel(std::vector<float> first, std::vector<float> then) : first_(std::move(first)), then_(std::move(then)) {}
    int vocab_size() const override { return static_cast<int>(first_.size()); }
    void step(float* logits, const int*, int n) override {
        for (int i = 0; i < n; i++) std::copy(row().begin(), row().end(), logits + static_cast<size_t>(i) * first_.size());
        ++steps_;
    }
    void select(const int*, int) override {}

private:
    const std::vector<float>& row() const { return steps_ == 0 ? first_ : then_; }
    std::vector<float> first_, then_;
    int steps_ = 0;
};

}  // namespace

TEST_CASE("a short length limit gives the best cut translation, not the empty one that finished first") {
    const SearchOptions opt = search_options(3, 2);
    //                 0      1      BOS    EOS    4     5
    PositionModel unlikely_empty({0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 4.0f}, {0.0f, 0.0f, 0.0f, -10.0f, 3.0f, 4.0f});
    std::vector<Hypothesis> beam = beam_search(unlikely_empty, opt);
    REQUIRE_FALSE(beam.empty());
    CHECK(beam[0].tokens == std::vector<int>{5, 5, 5});
    CHECK_FALSE(beam[0].finished);
    REQUIRE(beam.size() == 2);  // the empty translation, finished at the first step, follows
    CHECK(beam[1].tokens == std::vector<int>{EOS});

    // Where the empty translation is the likelier by score, it stays the answer.
    PositionModel likely_empty({0.0f, 0.0f, 0.0f, 4.0f, 0.0f, 3.0f}, {0.0f, 0.0f, 0.0f, -10.0f, 1.9f, 2.0f});
    beam = beam_search(likely_empty, opt);
    REQUIRE_FALSE(beam.empty());
    CHECK(beam[0].tokens == std::vector<int>{EOS});
    CHECK(beam[0].finished);
}

TEST_CASE("a finished translation outranks a cut one that scores better") {
    SearchOptions opt = search_options(3, 2);
    opt.length_penalty = 0.0f;
    // After one token, <eos> is the second choice (it finishes [5, EOS]); the loop 5 5 5 is likelier but is cut.
    PositionModel model({0.0f, 0.0f, 0.0f, -10.0f, 0.0f, 4.0f}, {0.0f, 0.0f, 0.0f, 2.0f, 0.0f, 4.0f});
    const std::vector<Hypothesis> beam = beam_search(model, opt);
    REQUIRE_FALSE(beam.empty());
    CHECK(beam[0].tokens == std::vector<int>{5, EOS});
    CHECK(beam[0].finished);
}

TEST_CASE("search options are validated") {
    TwoPathModel model;
    SearchOptions opt;
    opt.beam_size = 0;
    CHECK_THROWS_WITH(beam_search(model, opt), doctest::Contains("beam_size"));
    opt.beam_size = 1;
    opt.max_length = 0;
    CHECK_THROWS_WITH(greedy_search(model, opt), doctest::Contains("max_length"));
}

namespace {

// The probabilities of the distribution after `history`, in double precision: the reference for alternatives.
std::vector<double> probabilities_after(uint64_t seed, const std::vector<int>& history, int V, float eos_bias) {
    std::vector<float> l = prefix_logits(seed, history, V, eos_bias);
    const double m = *std::max_element(l.begin(), l.end());
    double s = 0;
    for (float x : l) s += std::exp(static_cast<double>(x) - m);
    std::vector<double> p(V);
    for (int v = 0; v < V; v++) p[v] = std::exp(static_cast<double>(l[v]) - m) / s;
    return p;
}

// h's alternatives at every position are the k most probable tokens after the tokens before it, in order, with
// their probabilities, and its token's probability is its own there.
void check_alternatives(const Hypothesis& h, uint64_t seed, int V, float eos_bias, int k) {
    const size_t T = h.tokens.size();
    REQUIRE(h.token_probs.size() == T);
    REQUIRE(h.alternative_ids.size() == T * k);
    REQUIRE(h.alternative_probs.size() == T * k);
    for (size_t t = 0; t < T; t++) {
        const std::vector<int> history(h.tokens.begin(), h.tokens.begin() + static_cast<std::ptrdiff_t>(t));
        const std::vector<double> p = probabilities_after(seed, history, V, eos_bias);
        std::vector<int> order(V);
        for (int v = 0; v < V; v++) order[v] = v;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
        CAPTURE(t);
        CHECK(h.token_probs[t] == doctest::Approx(p[h.tokens[t]]).epsilon(1e-5));
        for (int j = 0; j < k; j++) {
            CHECK(h.alternative_ids[t * k + j] == order[j]);
            CHECK(h.alternative_probs[t * k + j] == doctest::Approx(p[order[j]]).epsilon(1e-5));
        }
    }
}

}  // namespace

TEST_CASE("a target prefix begins the output, and greedy search goes on from it as from its own choices") {
    const int V = 9;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        SearchOptions opt = search_options(12, 1);
        opt.prefix = {static_cast<int>(seed % 2), 5, static_cast<int>(4 + seed % 5)};
        HistoryModel model(seed, V, 0.4f);
        const Hypothesis h = greedy_search(model, opt);
        CAPTURE(seed);
        REQUIRE(h.tokens.size() > opt.prefix.size());
        CHECK(std::equal(opt.prefix.begin(), opt.prefix.end(), h.tokens.begin()));
        // Every token after the prefix is the most probable one after those before it.
        for (size_t t = opt.prefix.size(); t < h.tokens.size(); t++) {
            const std::vector<int> history(h.tokens.begin(), h.tokens.begin() + static_cast<std::ptrdiff_t>(t));
            const std::vector<float> l = prefix_logits(seed, history, V, 0.4f);
            CHECK(h.tokens[t] == static_cast<int>(std::max_element(l.begin(), l.end()) - l.begin()));
        }
        // The forced tokens are scored like any other: log_prob is the sequence's own.
        CHECK(h.log_prob == doctest::Approx(log_prob_of(seed, h.tokens, V, 0.4f)).epsilon(1e-5));
    }
}

TEST_CASE("greedy search with its own first tokens as the prefix gives its translation and alternatives again") {
    const int V = 9, k = 4;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        SearchOptions opt = search_options(12, 1);
        opt.alternatives = k;
        HistoryModel a(seed, V, 0.4f);
        const Hypothesis free = greedy_search(a, opt);
        for (size_t P = 1; P < free.tokens.size(); P++) {
            opt.prefix.assign(free.tokens.begin(), free.tokens.begin() + static_cast<std::ptrdiff_t>(P));
            HistoryModel b(seed, V, 0.4f);
            const Hypothesis forced = greedy_search(b, opt);
            CAPTURE(seed);
            CAPTURE(P);
            CHECK(forced.tokens == free.tokens);
            CHECK(forced.alternative_ids == free.alternative_ids);
            CHECK(forced.alternative_probs == free.alternative_probs);
            CHECK(forced.token_probs == free.token_probs);
        }
    }
}

TEST_CASE("a wide beam with a prefix finds the best translation that begins with it") {
    const int V = 5, max_len = 5;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        const std::vector<int> prefix{static_cast<int>(seed % 2), 4};
        Best best;
        std::vector<int> tokens = prefix;
        enumerate(seed, V, 0.3f, max_len, 0.0f, tokens, best);
        REQUIRE(!best.tokens.empty());
        SearchOptions opt = search_options(max_len, 200);
        opt.prefix = prefix;
        HistoryModel model(seed, V, 0.3f);
        const std::vector<Hypothesis> hyps = beam_search(model, opt);
        REQUIRE(!hyps.empty());
        CAPTURE(seed);
        CHECK(hyps[0].tokens == best.tokens);
        CHECK(hyps[0].log_prob == doctest::Approx(best.score).epsilon(1e-5));
    }
}

TEST_CASE("alternatives are each position's most probable tokens, the way the search saw them") {
    const int V = 9, k = 5;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        CAPTURE(seed);
        SearchOptions opt = search_options(12, 1);
        opt.alternatives = k;
        HistoryModel a(seed, V, 0.4f), b(seed, V, 0.4f);
        const Hypothesis greedy = greedy_search(a, opt);
        check_alternatives(greedy, seed, V, 0.4f, k);
        for (size_t t = 0; t < greedy.tokens.size(); t++) CHECK(greedy.alternative_ids[t * k] == greedy.tokens[t]);
        // Beam size 1 keeps the same ones.
        const Hypothesis beam1 = beam_search(b, opt).front();
        CHECK(beam1.alternative_ids == greedy.alternative_ids);
        for (size_t j = 0; j < greedy.alternative_probs.size(); j++)
            CHECK(beam1.alternative_probs[j] == doctest::Approx(greedy.alternative_probs[j]).epsilon(1e-6));
        // A wider beam reorders and prunes its hypotheses: each one still carries its own path's distributions,
        // and so does one with a prefix.
        opt.beam_size = 4;
        HistoryModel c(seed, V, 0.4f);
        for (const Hypothesis& h : beam_search(c, opt)) check_alternatives(h, seed, V, 0.4f, k);
        opt.prefix = {6, 1};
        HistoryModel d(seed, V, 0.4f);
        for (const Hypothesis& h : beam_search(d, opt)) {
            CHECK(h.tokens[0] == 6);
            CHECK(h.tokens[1] == 1);
            check_alternatives(h, seed, V, 0.4f, k);
        }
    }
}

TEST_CASE("a forced token the repetition controls forbid is scored by the model, and is no alternative there") {
    const int V = 9, k = V;
    const uint64_t seed = 3;
    SearchOptions opt = search_options(6, 1);
    opt.no_repeat_ngram_size = 1;  // no token twice
    opt.alternatives = k;
    opt.prefix = {5, 5};
    for (int beam : {1, 3}) {
        opt.beam_size = beam;
        HistoryModel model(seed, V, 0.4f);
        const Hypothesis h = beam == 1 ? greedy_search(model, opt) : beam_search(model, opt).front();
        CAPTURE(beam);
        REQUIRE(h.tokens.size() > 2);
        CHECK(h.tokens[1] == 5);
        CHECK(std::isfinite(h.log_prob));
        CHECK(h.token_probs[1] == doctest::Approx(probabilities_after(seed, {5}, V, 0.4f)[5]).epsilon(1e-5));
        // Position 1's distribution forbids 5 (said at 0): it lists every other token, and 5 not at all.
        const std::vector<int> row(h.alternative_ids.begin() + k, h.alternative_ids.begin() + 2 * k);
        CHECK(std::count(row.begin(), row.end(), 5) == 0);
        CHECK(std::count(row.begin(), row.end(), -1) == 1);
        float sum = 0;
        for (int j = 0; j < k; j++) sum += h.alternative_probs[k + j];
        CHECK(sum == doctest::Approx(1.0f).epsilon(1e-5));
    }
}

TEST_CASE("a target prefix is checked") {
    TwoPathModel model;
    SearchOptions opt = search_options(4, 1);
    opt.prefix = {1, EOS};
    CHECK_THROWS_WITH(greedy_search(model, opt), doctest::Contains("<eos>"));
    opt.prefix = {1, 99};
    CHECK_THROWS_WITH(greedy_search(model, opt), doctest::Contains("outside the vocabulary"));
    opt.prefix = {1, 1, 1, 1};
    CHECK_THROWS_WITH(beam_search(model, opt), doctest::Contains("the target prefix is 4 tokens long"));
}
