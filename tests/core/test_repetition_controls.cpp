// The repetition controls (no_repeat_ngram_size, repetition_penalty; CTranslate2's semantics; the token, phrase and
// character run limits) in greedy, batched greedy and beam search, over synthetic models that love to repeat their
// last token. The reference applies the controls the plainest way, to each candidate continuation on its own, and
// enumerates every sequence.
#include <doctest/doctest.h>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "decode/greedy_search_batch.h"
#include "decode/logits_processor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace attend;

namespace {

constexpr int BOS = 2, EOS = 3;

// The texts of the 9 tokens of the synthetic models (for the character-run limit): short BPE pieces of a and b.
const std::vector<std::string> kTokens = {"a@@", "aa@@", "<bos>", "<eos>", "a", "b@@", "ab@@", "ba", "aa"};

// The shapes of the first V tokens.
const std::vector<TokenShape>& shapes(int V) {
    static std::vector<std::vector<TokenShape>> by_size(kTokens.size() + 1);
    std::vector<TokenShape>& s = by_size.at(V);
    if (s.empty())
        for (int i = 0; i < V; i++) s.push_back(token_shape(kTokens[i]));
    return s;
}

// The longest run of one character in the text the tokens spell (pieces ending in @@ glued to the next one,
// other tokens followed by a space; a special token such as <bos> stands for a space).
int longest_char_run(const std::vector<int>& tokens) {
    std::string text;
    for (int t : tokens) {
        const std::string& piece = kTokens[t];
        if (piece.front() == '<') {
            text += " ";
            continue;
        }
        const bool glued = piece.size() > 2 && piece.compare(piece.size() - 2, 2, "@@") == 0;
        text += glued ? piece.substr(0, piece.size() - 2) : piece + " ";
    }
    int best = 0, run = 0;
    for (size_t i = 0; i < text.size(); i++) {
        run = text[i] != ' ' && i > 0 && text[i] == text[i - 1] ? run + 1 : text[i] != ' ' ? 1 : 0;
        best = std::max(best, run);
    }
    return best;
}

// Logits are a pure function of (seed, prefix); the newest token gets a bonus, so without controls a search
// soon repeats it over and over (the degenerate loop the controls are there to stop).
std::vector<float> looping_logits(uint64_t seed, const std::vector<int>& prefix, int V) {
    uint64_t h = seed * 0x9E3779B97F4A7C15ull + 0x51ull;
    for (int t : prefix) h = (h ^ static_cast<uint64_t>(t + 1)) * 0x100000001B3ull;
    std::vector<float> logits(V);
    for (int v = 0; v < V; v++) {
        h ^= h >> 33; h *= 0xff51afd7ed558ccdull; h ^= h >> 33;
        logits[v] = static_cast<float>((h >> 11) * (1.0 / 9007199254740992.0)) * 4.0f - 2.0f;
    }
    if (!prefix.empty() && prefix.back() != EOS) logits[prefix.back()] += 3.0f;
    logits[EOS] -= 1.5f;
    return logits;
}

int longest_run(const std::vector<int>& tokens);

// The length of the longest phrase of 2 to n tokens that `tokens` ends with twice in a row, and that `source` does
// not hold twice in a row; 0 if none.
int ends_with_stutter(const std::vector<int>& tokens, int n, const std::vector<int>& source) {
    int longest = 0;
    for (int k = 2; k <= n && 2 * k <= static_cast<int>(tokens.size()); k++) {
        const auto second = tokens.end() - k, first = second - k;
        if (!std::equal(first, second, second)) continue;
        bool exempt = false;
        for (size_t s = 0; s + 2 * k <= source.size(); s++)
            exempt = exempt || (std::equal(first, second, source.begin() + s) &&
                                std::equal(first, second, source.begin() + s + k));
        if (!exempt) longest = k;
    }
    return longest;
}

// Whether `tokens` ends with a run of more than n of one piece inside a word (kTokens "a@@", "aa@@", "b@@", "ab@@"),
// and `source` holds no run of that piece as long.
bool ends_with_piece_run(const std::vector<int>& tokens, int n, const std::vector<int>& source) {
    if (n <= 0 || tokens.empty()) return false;
    const int last = tokens.back();
    const std::string& piece = kTokens[last];
    if (piece.size() < 3 || piece.compare(piece.size() - 2, 2, "@@") != 0) return false;
    int run = 0;
    while (run < static_cast<int>(tokens.size()) && tokens[tokens.size() - 1 - run] == last) run++;
    if (run <= n) return false;
    for (size_t s = 0; s + n + 1 <= source.size(); s++)
        if (std::all_of(source.begin() + s, source.begin() + s + n + 1, [&](int t) { return t == last; })) return false;
    return true;
}

// Whether some prefix of `tokens` ends with such a phrase twice in a row.
bool stutters(const std::vector<int>& tokens, int n, const std::vector<int>& source) {
    for (size_t end = 1; end <= tokens.size(); end++)
        if (ends_with_stutter(std::vector<int>(tokens.begin(), tokens.begin() + end), n, source) > 0) return true;
    return false;
}

// The controls of `options` applied to the logits that follow `prefix`, one candidate token at a time.
std::vector<float> reference_logits(uint64_t seed, const std::vector<int>& prefix, int V, const SearchOptions& options) {
    std::vector<float> logits = looping_logits(seed, prefix, V);
    for (int v = 0; v < V; v++) {
        if (options.repetition_penalty != 1.0f && std::find(prefix.begin(), prefix.end(), v) != prefix.end())
            logits[v] = logits[v] < 0 ? logits[v] * options.repetition_penalty : logits[v] / options.repetition_penalty;
        const int n = options.no_repeat_ngram_size;
        std::vector<int> seq = prefix;
        seq.push_back(v);
        if (n > 0 && static_cast<int>(seq.size()) >= n) {
            const auto last = seq.end() - n;  // the n-gram that v would complete
            for (auto start = seq.begin(); start < last; ++start)
                if (std::equal(last, seq.end(), start)) logits[v] = -INFINITY;
        }
        if (options.max_char_run > 0 && longest_char_run(seq) > options.max_char_run) logits[v] = -INFINITY;
        if (options.max_token_run > 0 && longest_run(seq) > options.max_token_run) logits[v] = -INFINITY;
        if (ends_with_stutter(seq, options.no_adjacent_repeat_size, options.source_ids) > 0) logits[v] = -INFINITY;
        if (ends_with_piece_run(seq, options.max_piece_run, options.source_ids)) logits[v] = -INFINITY;
    }
    return logits;
}

double reference_log_prob(uint64_t seed, const std::vector<int>& tokens, int V, const SearchOptions& options) {
    double total = 0;
    std::vector<int> prefix;
    for (int tok : tokens) {
        std::vector<float> l = reference_logits(seed, prefix, V, options);
        double m = *std::max_element(l.begin(), l.end()), s = 0;
        for (float x : l) s += std::exp(static_cast<double>(x) - m);
        total += l[tok] - m - std::log(s);
        prefix.push_back(tok);
    }
    return total;
}

// Row i decodes with seed seeds[i]; each row remembers its history, as a model keeps its caches. eos_gain raises
// <eos>'s logit by that much for each token generated, so that a row ends.
class LoopingModel : public StepModel {
public:
    LoopingModel(std::vector<uint64_t> seeds, int V, float eos_gain = 0.0f)
        : seeds_(std::move(seeds)), V_(V), eos_gain_(eos_gain), histories_(seeds_.size()) {}
    int vocab_size() const override { return V_; }
    void step(float* logits, const int* last_tokens, int n) override {
        REQUIRE(n == static_cast<int>(histories_.size()));
        for (int i = 0; i < n; i++) {
            if (started_) histories_[i].push_back(last_tokens[i]);
            else REQUIRE(last_tokens[i] == BOS);
            std::vector<float> l = looping_logits(seeds_[i], histories_[i], V_);
            l[EOS] += eos_gain_ * static_cast<float>(histories_[i].size());
            std::copy(l.begin(), l.end(), logits + static_cast<size_t>(i) * V_);
        }
        started_ = true;
    }
    void select(const int* parents, int n) override {
        std::vector<std::vector<int>> histories(n);
        std::vector<uint64_t> seeds(n);
        for (int i = 0; i < n; i++) {
            histories[i] = histories_[parents[i]];
            seeds[i] = seeds_[parents[i]];
        }
        histories_ = std::move(histories);
        seeds_ = std::move(seeds);
    }

private:
    std::vector<uint64_t> seeds_;
    int V_;
    float eos_gain_;
    std::vector<std::vector<int>> histories_;
    bool started_ = false;
};

SearchOptions controls(int ngram, float penalty, int max_length, int max_char_run = 0, int V = 9, int max_token_run = 0) {
    SearchOptions o;
    o.max_token_run = max_token_run;
    o.max_char_run = max_char_run;
    o.token_shapes = &shapes(V);
    o.bos_id = BOS;
    o.eos_id = EOS;
    o.max_length = max_length;
    o.no_repeat_ngram_size = ngram;
    o.repetition_penalty = penalty;
    return o;
}

// Whether `o` asks for any rule over the 9 tokens.
bool active(const SearchOptions& o) { return !make_logits_processors(o, 9).empty(); }

// The tokens of the 9 that the controls of `o` leave allowed (or, !allowed, forbid) after `generated`.
std::vector<int> tokens_left(const SearchOptions& o, const std::vector<int>& generated, bool allowed) {
    LogitsProcessors c = make_logits_processors(o, 9);
    std::vector<float> logits(9, 0.5f);
    apply_logits_processors(c, logits.data(), generated.data(), static_cast<int>(generated.size()));
    std::vector<int> out;
    for (int v = 0; v < 9; v++)
        if (std::isfinite(logits[v]) == allowed) out.push_back(v);
    return out;
}

bool repeats_an_ngram(const std::vector<int>& tokens, int n) {
    for (size_t a = 0; a + n <= tokens.size(); a++)
        for (size_t b = a + 1; b + n <= tokens.size(); b++)
            if (std::equal(tokens.begin() + a, tokens.begin() + a + n, tokens.begin() + b)) return true;
    return false;
}

int longest_run(const std::vector<int>& tokens) {
    int best = 0, run = 0;
    for (size_t i = 0; i < tokens.size(); i++) {
        run = i > 0 && tokens[i] == tokens[i - 1] ? run + 1 : 1;
        best = std::max(best, run);
    }
    return best;
}

struct Setting {
    int ngram;
    float penalty;
    int char_run;
    int token_run;
    int adjacent = 0;              // no_adjacent_repeat_size
    std::vector<int> source = {};  // source_ids
    int piece_run = 0;             // max_piece_run
};
const Setting kSettings[] = {
    {0, 1.0f, 0, 0}, {1, 1.0f, 0, 0}, {2, 1.0f, 0, 0}, {3, 1.0f, 0, 0}, {0, 1.5f, 0, 0}, {0, 0.8f, 0, 0},
    {2, 1.3f, 0, 0}, {4, 1.2f, 0, 0}, {0, 1.0f, 4, 0}, {0, 1.0f, 2, 0}, {3, 1.0f, 4, 0}, {2, 1.2f, 3, 0},
    {0, 1.0f, 0, 1}, {0, 1.0f, 0, 3}, {4, 1.0f, 4, 3},
    {0, 1.0f, 0, 1, 2}, {0, 1.0f, 0, 1, 8}, {0, 1.0f, 0, 0, 3}, {4, 1.2f, 4, 3, 8},
    {0, 1.0f, 0, 1, 3, {6, 4, 6, 4, 8}}, {0, 1.0f, 0, 1, 8, {1, 0, 4, 1, 0, 4}},
    {0, 1.0f, 0, 0, 0, {}, 1}, {0, 1.0f, 0, 0, 0, {}, 2}, {0, 1.0f, 0, 3, 0, {}, 2}, {0, 1.0f, 0, 0, 0, {4, 0, 0, 0}, 2},
    {4, 1.2f, 4, 3, 8, {}, 2}};

SearchOptions controls(const Setting& s, int max_length, int V) {
    SearchOptions o = controls(s.ngram, s.penalty, max_length, s.char_run, V, s.token_run);
    o.no_adjacent_repeat_size = s.adjacent;
    o.source_ids = s.source;
    o.max_piece_run = s.piece_run;
    return o;
}

}  // namespace

TEST_CASE("without controls the looping model repeats a token, with no_repeat_ngram_size it cannot") {
    int looped = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        LoopingModel plain({seed}, 9), controlled({seed}, 9);
        if (longest_run(greedy_search(plain, controls(0, 1.0f, 30)).tokens) >= 5) looped++;
        Hypothesis h = greedy_search(controlled, controls(2, 1.0f, 30));
        CHECK_FALSE(repeats_an_ngram(h.tokens, 2));
    }
    CHECK(looped >= 10);  // the controls below are tested on a model that needs them
}

TEST_CASE("greedy search with repetition controls takes the reference's most likely token at every step") {
    for (const auto& s : kSettings)
        for (uint64_t seed = 1; seed <= 20; seed++) {
            CAPTURE(seed);
            CAPTURE(s.ngram);
            CAPTURE(s.penalty);
            CAPTURE(s.char_run);
            const SearchOptions opt = controls(s, 14, 9);
            LoopingModel model({seed}, 9);
            const Hypothesis h = greedy_search(model, opt);
            std::vector<int> expected;
            while (static_cast<int>(expected.size()) < opt.max_length) {
                std::vector<float> l = reference_logits(seed, expected, 9, opt);
                expected.push_back(static_cast<int>(std::max_element(l.begin(), l.end()) - l.begin()));
                if (expected.back() == EOS) break;
            }
            CHECK(h.tokens == expected);
            CHECK(h.finished == (expected.back() == EOS));
            CHECK(h.log_prob == doctest::Approx(reference_log_prob(seed, h.tokens, 9, opt)).epsilon(1e-5));
            if (s.ngram > 0) CHECK_FALSE(repeats_an_ngram(h.tokens, s.ngram));
            if (s.char_run > 0) CHECK(longest_char_run(h.tokens) <= s.char_run);
            if (s.token_run > 0) CHECK(longest_run(h.tokens) <= s.token_run);
            CHECK_FALSE(stutters(h.tokens, s.adjacent, s.source));
        }
}

TEST_CASE("batched greedy search with repetition controls gives each row its greedy result") {
    for (const auto& s : kSettings) {
        CAPTURE(s.ngram);
        CAPTURE(s.penalty);
        const std::vector<uint64_t> seeds = {3, 5, 7, 11, 13, 17};
        const std::vector<int> max_lengths = {14, 3, 20, 1, 9, 14};
        LoopingModel batch(seeds, 9);
        const std::vector<Hypothesis> hyps = greedy_search_batch(batch, max_lengths, controls(s, 0, 9));
        REQUIRE(hyps.size() == seeds.size());
        for (size_t i = 0; i < seeds.size(); i++) {
            LoopingModel one({seeds[i]}, 9);
            const Hypothesis h = greedy_search(one, controls(s, max_lengths[i], 9));
            CAPTURE(i);
            CHECK(hyps[i].tokens == h.tokens);
            CHECK(hyps[i].finished == h.finished);
            CHECK(hyps[i].log_prob == doctest::Approx(h.log_prob).epsilon(1e-5));
        }
    }
}

TEST_CASE("beam search with repetition controls finds the brute-force optimum of the controlled distribution") {
    // V = 5 with <eos> = 3: 4 continuing tokens, 4^4 = 256 prefixes at most for max_length 5; a beam of 300
    // keeps every one, so the search is exact.
    const int V = 5, max_len = 5;
    for (const auto& s : kSettings)
        for (float alpha : {0.0f, 0.6f})
            for (uint64_t seed = 1; seed <= 6; seed++) {
                CAPTURE(seed);
                CAPTURE(s.ngram);
                CAPTURE(s.penalty);
                CAPTURE(alpha);
                SearchOptions opt = controls(s, max_len, V);
                opt.length_penalty = alpha;
                opt.beam_size = 300;
                std::vector<int> best_tokens;
                double best_score = -INFINITY;
                // Every sequence that ends in <eos> within max_len, scored under the controlled distribution.
                std::vector<std::vector<int>> frontier = {{}};
                while (!frontier.empty()) {
                    std::vector<std::vector<int>> next;
                    for (const std::vector<int>& p : frontier)
                        for (int v = 0; v < V; v++) {
                            std::vector<int> seq = p;
                            seq.push_back(v);
                            const double lp = reference_log_prob(seed, seq, V, opt);
                            if (lp == -INFINITY) continue;  // a forbidden continuation
                            if (v == EOS) {
                                const double score = alpha == 0 ? lp : lp / std::pow(static_cast<double>(seq.size()), alpha);
                                if (score > best_score) best_tokens = seq, best_score = score;
                            } else if (static_cast<int>(seq.size()) < max_len) {
                                next.push_back(seq);
                            }
                        }
                    frontier = std::move(next);
                }
                LoopingModel model({seed}, V);
                const std::vector<Hypothesis> hyps = beam_search(model, opt);
                REQUIRE(!hyps.empty());
                CHECK(hyps[0].finished);
                CHECK(hyps[0].tokens == best_tokens);
                CHECK(hyps[0].score == doctest::Approx(best_score).epsilon(1e-5));
                for (const Hypothesis& h : hyps) {
                    CHECK(h.log_prob == doctest::Approx(reference_log_prob(seed, h.tokens, V, opt)).epsilon(1e-5));
                    if (s.ngram > 0) CHECK_FALSE(repeats_an_ngram(h.tokens, s.ngram));
                    CHECK_FALSE(stutters(h.tokens, s.adjacent, s.source));
                }
            }
}

TEST_CASE("beam size 1 with repetition controls is greedy search with them") {
    for (uint64_t seed = 1; seed <= 10; seed++) {
        SearchOptions opt = controls(3, 1.2f, 16);
        LoopingModel a({seed}, 9), b({seed}, 9);
        const Hypothesis greedy = greedy_search(a, opt);
        const std::vector<Hypothesis> beam = beam_search(b, opt);
        REQUIRE(beam.size() == 1);
        CHECK(beam[0].tokens == greedy.tokens);
    }
}

TEST_CASE("without the character-run limit the looping model spells long runs, with it never") {
    int long_runs = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        LoopingModel plain({seed}, 9), limited({seed}, 9);
        if (longest_char_run(greedy_search(plain, controls(0, 1.0f, 30)).tokens) > 4) long_runs++;
        CHECK(longest_char_run(greedy_search(limited, controls(0, 1.0f, 30, 4)).tokens) <= 4);
    }
    CHECK(long_runs >= 5);
}

TEST_CASE("without the phrase limit the looping model says a phrase twice in a row, with it never") {
    // max_token_run 1 stops the one-token loop; the model then falls into a two- or three-token one.
    int stuttered = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        LoopingModel plain({seed}, 9), limited({seed}, 9);
        SearchOptions o = controls(0, 1.0f, 30, 0, 9, 1);
        if (stutters(greedy_search(plain, o).tokens, 8, {})) stuttered++;
        o.no_adjacent_repeat_size = 8;
        CHECK_FALSE(stutters(greedy_search(limited, o).tokens, 8, {}));
    }
    CHECK(stuttered >= 10);
}

TEST_CASE("the phrase limit forbids the token that ends a phrase said twice in a row, unless the source says it so") {
    auto allowed = [](int size, const std::vector<int>& generated, const std::vector<int>& source) {
        SearchOptions o = controls(0, 1.0f, 30);
        o.no_adjacent_repeat_size = size;
        o.source_ids = source;
        return tokens_left(o, generated, true);
    };
    const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    auto all_but = [&](int banned) {
        std::vector<int> out;
        for (int v : all)
            if (v != banned) out.push_back(v);
        return out;
    };
    CHECK(allowed(8, {4, 7, 4}, {}) == all_but(7));        // "4 7 4 7"
    CHECK(allowed(8, {1, 4, 7, 1, 4}, {}) == all_but(7));  // "1 4 7 1 4 7"
    CHECK(allowed(2, {1, 4, 7, 1, 4}, {}) == all);         // three tokens: longer than the limit
    CHECK(allowed(8, {4, 4}, {}) == all);                  // one token twice is max_token_run's
    CHECK(allowed(8, {7, 4}, {}) == all);
    CHECK(allowed(8, {4, 7, 4}, {5, 4, 7, 4, 7, 0}) == all);  // the source has "4 7 4 7"
    CHECK(allowed(8, {4, 7, 4}, {4, 7, 5, 4, 7}) == all_but(7));  // twice, not in a row
    CHECK(allowed(0, {4, 7, 4}, {}) == all);
    CHECK(allowed(1, {4, 7, 4}, {}) == all);
    SearchOptions o = controls(0, 1.0f, 30);
    o.no_adjacent_repeat_size = 1;
    CHECK_FALSE(active(o));
    o.no_adjacent_repeat_size = 2;
    CHECK(active(o));
    o.no_adjacent_repeat_size = -1;
    CHECK_THROWS_WITH(make_logits_processors(o, 9), doctest::Contains("no_adjacent_repeat_size"));
}

TEST_CASE("the piece limit forbids a piece inside a word more than n times in a row, unless the source has it so") {
    auto banned = [](int n, const std::vector<int>& generated, const std::vector<int>& source) {
        SearchOptions o = controls(0, 1.0f, 30);
        o.max_piece_run = n;
        o.source_ids = source;
        return tokens_left(o, generated, false);
    };
    using V = std::vector<int>;
    // kTokens: 0 "a@@", 1 "aa@@", 5 "b@@", 6 "ab@@" go on into the next token; 4 "a", 7 "ba", 8 "aa" end a word.
    CHECK(banned(2, {4, 5, 5}, {}) == V{5});     // "b@@ b@@" then b@@ again: "bbb..."
    CHECK(banned(2, {6, 6}, {}) == V{6});
    CHECK(banned(2, {5, 6, 5}, {}) == V{});      // not in a row
    CHECK(banned(2, {5}, {}) == V{});
    CHECK(banned(1, {5}, {}) == V{5});
    CHECK(banned(2, {8, 8}, {}) == V{});         // a word: max_token_run's
    CHECK(banned(2, {5, 5}, {4, 5, 5, 5}) == V{});  // the source has "b@@" three times in a row
    CHECK(banned(2, {5, 5}, {5, 5, 4, 5}) == V{5}); // twice only
    CHECK(banned(0, {5, 5, 5}, {}) == V{});
    SearchOptions o = controls(0, 1.0f, 30);
    o.max_piece_run = 2;
    CHECK(active(o));
    o.max_piece_run = -1;
    CHECK_THROWS_WITH(make_logits_processors(o, 9), doctest::Contains("max_piece_run"));
    o.max_piece_run = 2;
    o.token_shapes = nullptr;
    CHECK_THROWS_WITH(make_logits_processors(o, 9), doctest::Contains("max_piece_run needs the shape of every one"));
}

TEST_CASE("token shapes: the ends of a token's text, BPE continuations, special tokens") {
    const TokenShape a = token_shape("aab@@");
    CHECK(a.first == U'a');
    CHECK(a.lead == 2);
    CHECK(a.last == U'b');
    CHECK(a.trail == 1);
    CHECK(a.joins_next);
    CHECK_FALSE(a.uniform);
    const TokenShape z = token_shape("000");
    CHECK(z.uniform);
    CHECK(z.lead == 3);
    CHECK_FALSE(z.joins_next);
    CHECK(token_shape("ßß@@").first == U'ß');
    CHECK(token_shape("<eos>").first == 0);
    CHECK(token_shape("@@").first == 0);
}

TEST_CASE("repetition controls reject a negative n-gram size and a penalty that is not a positive number") {
    CHECK_THROWS_WITH(make_logits_processors(controls(0, 1.0f, 5, -1), 9), doctest::Contains("max_char_run"));
    CHECK_THROWS_WITH(make_logits_processors(controls(0, 1.0f, 5, 0, 9, -1), 9), doctest::Contains("max_token_run"));
    SearchOptions no_shapes = controls(0, 1.0f, 5, 4);
    no_shapes.token_shapes = nullptr;
    CHECK_THROWS_WITH(make_logits_processors(no_shapes, 9), doctest::Contains("shape"));
    CHECK_THROWS_WITH(make_logits_processors(controls(-1, 1.0f, 5), 9), doctest::Contains("no_repeat_ngram_size"));
    for (float bad : {0.0f, -1.0f, NAN, INFINITY})
        CHECK_THROWS_WITH(make_logits_processors(controls(0, bad, 5), 9), doctest::Contains("repetition_penalty"));
}

namespace {

// A vocabulary of digit pieces in the synthetic models' 9 places (<bos> and <eos> where they are).
const std::vector<std::string> kDigitTokens = {"5@@", "0@@", "<bos>", "<eos>", "5", "0", "1@@", "pm", "x@@"};

std::vector<TokenShape> shapes_of(const std::vector<std::string>& tokens) {
    std::vector<TokenShape> v;
    for (const std::string& t : tokens) v.push_back(token_shape(t));
    return v;
}

const std::vector<TokenShape>& digit_shapes() {
    static const std::vector<TokenShape> s = shapes_of(kDigitTokens);
    return s;
}

// The runs of digits in the text that tokens of kDigitTokens spell (a special token stands for a space).
std::vector<std::string> written_numbers(const std::vector<int>& tokens) {
    std::vector<std::string> pieces;
    for (int t : tokens) pieces.push_back(kDigitTokens[t].front() == '<' ? " " : kDigitTokens[t]);
    std::vector<std::string> out;
    for (const NumberRun& n : digit_runs(pieces)) out.push_back(n.digits);
    return out;
}

SearchOptions number_rule(int max_length, std::vector<NumberRun> numbers) {
    SearchOptions o;
    o.bos_id = BOS;
    o.eos_id = EOS;
    o.max_length = max_length;
    o.token_shapes = &digit_shapes();
    o.numbers_from_source = true;
    o.source_numbers = std::move(numbers);
    return o;
}

// Which of the tokens (those o.token_shapes describes) the controls leave allowed after `generated`.
std::vector<bool> allowed_after(const SearchOptions& o, const std::vector<int>& generated) {
    const int vocab = static_cast<int>(o.token_shapes->size());
    LogitsProcessors controls = make_logits_processors(o, vocab);
    std::vector<float> logits(static_cast<size_t>(vocab), 0.5f);
    apply_logits_processors(controls, logits.data(), generated.data(), static_cast<int>(generated.size()));
    std::vector<bool> allowed;
    for (float x : logits) allowed.push_back(std::isfinite(x));
    return allowed;
}

}  // namespace

TEST_CASE("token shapes: the ASCII digits a token begins and ends with") {
    const TokenShape mixed = token_shape("12ab3@@");
    CHECK(mixed.head_digits == "12");
    CHECK(mixed.tail_digits == "3");
    CHECK_FALSE(mixed.digits_only);
    CHECK(mixed.joins_next);
    const TokenShape number = token_shape("123");
    CHECK(number.head_digits == "123");
    CHECK(number.tail_digits == "123");
    CHECK(number.digits_only);
    CHECK(token_shape("abc").head_digits.empty());
    CHECK_FALSE(token_shape("abc").digits_only);
    CHECK(token_shape("<eos>").head_digits.empty());
    CHECK_FALSE(token_shape("<eos>").digits_only);
    CHECK(token_shape("٣").head_digits.empty());  // an Arabic-Indic three: not an ASCII digit
}

TEST_CASE("digit_runs: the numbers BPE tokens spell, each once, glued where the text goes on after them") {
    auto runs = [](const std::vector<std::string>& tokens) {
        std::vector<std::string> out;
        for (const NumberRun& n : digit_runs(tokens)) out.push_back(n.digits + (n.glued ? "+" : ""));
        return out;
    };
    CHECK(runs({"1@@", "5@@", "h@@", "30", "m", "<eos>"}) == std::vector<std::string>{"15+", "30"});
    CHECK(runs({"in", "the", "19@@", "50@@", "s", "<eos>"}) == std::vector<std::string>{"1950+"});
    CHECK(runs({"5", "dogs", "and", "5", "cats", "<eos>"}) == std::vector<std::string>{"5"});
    CHECK(runs({"5", "and", "5@@", "k", "<eos>"}) == std::vector<std::string>{"5+"});  // glued at one place of two
    CHECK(runs({"10@@", ":@@", "45"}) == std::vector<std::string>{"10+", "45"});
    CHECK(runs({"a", "&@@", "#@@", "9@@", "1@@", ";", "b", "&#@@", "93@@", ";", "7", "<eos>"}) ==
          std::vector<std::string>{"7"});  // "[b]" as Moses escapes it: character codes, not numbers
    CHECK(runs({"no", "numbers", "<eos>"}).empty());
    CHECK(runs({}).empty());
}

TEST_CASE("number rule: a digit may begin, go on with or end a number of the source, and nothing else") {
    // Tokens: 0 "5@@", 1 "0@@", 2 <bos>, 3 <eos>, 4 "5", 5 "0", 6 "1@@", 7 "pm", 8 "x@@".
    const SearchOptions fifty = number_rule(10, {{"50", false}});
    // At the start of a word: "5@@" begins 50; "5" would end the number 5, "0@@" and "1@@" begin none.
    CHECK(allowed_after(fifty, {}) == std::vector<bool>{true, false, true, true, false, false, false, true, true});
    // After "5@@" only the digit that ends 50: "pm" or <eos> would leave 5 there, "0@@" glue on to a 50 that the
    // source writes alone.
    CHECK(allowed_after(fifty, {0}) == std::vector<bool>{false, false, false, false, false, true, false, false, false});
    // Where the other controls forbid that digit ("5@@ 0" twice under no_repeat_ngram_size 2), <eos> is left: a
    // row always keeps a finite logit.
    CHECK(allowed_after(fifty, {0, 5, 0}) ==
          std::vector<bool>{false, false, false, false, false, true, false, false, false});
    SearchOptions no_bigram_twice = fifty;
    no_bigram_twice.no_repeat_ngram_size = 2;
    CHECK(allowed_after(no_bigram_twice, {0, 5, 0}) ==
          std::vector<bool>{false, false, false, true, false, false, false, false, false});
    // After "5@@ 0" the number is closed; another 50 may follow, as may any word.
    CHECK(allowed_after(fifty, {0, 5}) == allowed_after(fifty, {}));
    // A run that only a letter piece ends: "x@@" then "5" ends 5, which is not the source's.
    CHECK_FALSE(allowed_after(fifty, {8})[4]);

    // The source glues something on to 50 ("50s"): after "5@@ 0@@" the text may go on with a letter.
    const SearchOptions fifties = number_rule(10, {{"50", true}});
    CHECK(allowed_after(fifties, {0, 1}) ==
          std::vector<bool>{false, false, true, true, false, false, false, true, true});
    // No number in the source: no digit at all.
    CHECK(allowed_after(number_rule(10, {}), {}) ==
          std::vector<bool>{false, false, true, true, false, false, false, true, true});
    // Without the rule nothing is forbidden.
    SearchOptions off = fifty;
    off.numbers_from_source = false;
    CHECK_FALSE(active(off));
    SearchOptions no_shapes = fifty;
    no_shapes.token_shapes = nullptr;
    CHECK_THROWS_WITH(make_logits_processors(no_shapes, 9), doctest::Contains("numbers_from_source needs the shape"));
}

TEST_CASE("number rule on SentencePiece pieces: a run of digits closes only on a whole number of the source") {
    const TokenShape piece = token_shape("\u2581" "12");
    CHECK(piece.starts_word);
    CHECK(piece.head_digits == "12");
    CHECK(piece.digits_only);
    CHECK(piece.first == U'\u2581');  // the character-run limit still sees the space
    CHECK_FALSE(token_shape("90").starts_word);

    auto runs = [](const std::vector<std::string>& tokens) {
        std::vector<std::string> out;
        for (const NumberRun& n : digit_runs(tokens, true)) out.push_back(n.digits);
        return out;
    };
    CHECK(runs({"\u2581born", "\u2581in", "\u258119", "90", ".", "<eos>"}) == std::vector<std::string>{"1990"});
    CHECK(runs({"\u2581\u6211", "\u51fa\u751f\u4e8e", "1", "9", "9", "0", "\u5e74", "<eos>"}) ==
          std::vector<std::string>{"1990"});  // 我出生于1990年: no space around it
    CHECK(runs({"\u25815", "\u2581and", "\u25815", "k"}) == std::vector<std::string>{"5"});

    // Tokens: 0 "▁1", 1 "9", 2 "90", 3 <bos>, 4 <eos>, 5 "▁born", 6 "年", 7 ".", 8 "▁19".
    const std::vector<std::string> vocab = {"\u25811", "9", "90", "<bos>", "<eos>", "\u2581born", "\u5e74", ".", "\u258119"};
    std::vector<TokenShape> shapes;
    for (const std::string& t : vocab) shapes.push_back(token_shape(t));
    SearchOptions o;
    o.bos_id = 3;
    o.eos_id = 4;
    o.max_length = 10;
    o.token_shapes = &shapes;
    o.numbers_from_source = true;
    o.word_start_pieces = true;
    o.source_numbers = {{"1990", false}};
    auto allowed = [&](const std::vector<int>& generated) { return allowed_after(o, generated); };
    // A number begins only at a word's start, with digits that begin 1990.
    CHECK(allowed({}) == std::vector<bool>{true, false, false, true, true, true, true, true, true});
    // After "▁19" only digits that go on towards 1990: a word, a mark, 年 or <eos> would leave 19.
    CHECK(allowed({8}) == std::vector<bool>{false, true, true, false, false, false, false, false, false});
    // After "▁19 9": 199 could go on only with a lone "0", which the vocabulary lacks; <eos> is left, as a row always
    // keeps a finite logit.
    CHECK(allowed({8, 1}) == std::vector<bool>{false, false, false, false, true, false, false, false, false});
    // After "▁19 90" the number is whole: anything that closes it (年, ".", a word, <eos>), and no more digits.
    CHECK(allowed({8, 2}) == std::vector<bool>{true, false, false, true, true, true, true, true, true});
    // A number begun is finished even where another control forbids its digits: "▁x ▁1 0 1 ▁x ▁1" under the 3-gram
    // limit may not write "0" again, but "1" alone is no number of the source (101), so "0" comes back.
    {
        const std::vector<std::string> v2 = {"\u25811", "0", "1", "<bos>", "<eos>", "\u2581x"};
        std::vector<TokenShape> s2;
        for (const std::string& t : v2) s2.push_back(token_shape(t));
        SearchOptions o2 = o;
        o2.token_shapes = &s2;
        o2.source_numbers = {{"101", false}};
        o2.no_repeat_ngram_size = 3;
        const std::vector<int> generated = {5, 0, 1, 2, 5, 0};
        auto finite = [&](const SearchOptions& opts) { return allowed_after(opts, generated); };
        CHECK(finite(o2) == std::vector<bool>{false, true, false, false, false, false});
        o2.numbers_from_source = false;
        CHECK_FALSE(finite(o2)[1]);  // the 3-gram limit alone forbids it
    }
    // Without the source's number no digit at all; a BPE vocabulary's rule is not this one.
    o.source_numbers.clear();
    CHECK(allowed({}) == std::vector<bool>{false, false, false, true, true, true, true, true, false});
}

TEST_CASE("number rule: greedy, batched greedy and beam search write only the source's numbers") {
    const std::vector<std::string> source = {"50", "105"};
    const SearchOptions rule = number_rule(16, {{"50", false}, {"105", false}});
    SearchOptions free = rule;
    free.numbers_from_source = false;
    // A hypothesis cut by the length limit may end inside a number; what it wrote before must be the source's.
    auto only_source = [&](const Hypothesis& h) {
        std::vector<int> tokens = h.tokens;
        while (!h.finished && !tokens.empty() && digit_shapes()[tokens.back()].joins_next &&
               !digit_shapes()[tokens.back()].tail_digits.empty())
            tokens.pop_back();
        for (const std::string& n : written_numbers(tokens))
            if (std::find(source.begin(), source.end(), n) == source.end()) return false;
        return true;
    };
    int invented = 0, written = 0;
    std::vector<uint64_t> seeds;
    for (uint64_t seed = 1; seed <= 30; seed++) seeds.push_back(seed);
    for (uint64_t seed : seeds) {
        CAPTURE(seed);
        LoopingModel a({seed}, 9), b({seed}, 9), c({seed}, 9);
        if (!only_source(greedy_search(a, free))) invented++;
        const Hypothesis greedy = greedy_search(b, rule);
        CHECK(only_source(greedy));
        if (!written_numbers(greedy.tokens).empty()) written++;
        SearchOptions beam = rule;
        beam.beam_size = 4;
        for (const Hypothesis& h : beam_search(c, beam)) CHECK(only_source(h));
    }
    LoopingModel batch(seeds, 9);
    const std::vector<Hypothesis> rows = greedy_search_batch(batch, std::vector<int>(seeds.size(), 16), rule);
    for (size_t i = 0; i < seeds.size(); i++) {
        CAPTURE(seeds[i]);
        CHECK(only_source(rows[i]));
        LoopingModel alone({seeds[i]}, 9);
        CHECK(rows[i].tokens == greedy_search(alone, rule).tokens);
    }
    CHECK(invented >= 10);  // the synthetic model does invent numbers, so the checks above can fail
    CHECK(written >= 5);    // and under the rule it still writes the source's
}

namespace {

// Tokens of quotation marks and brackets ("[" and "]" are not among the brackets closed).
const std::vector<std::string> kMarkTokens = {"&quot;", "(", "<bos>", "<eos>", "a", ")", "[", "]", "\"@@"};

const std::vector<TokenShape>& mark_shapes() {
    static const std::vector<TokenShape> s = shapes_of(kMarkTokens);
    return s;
}

SearchOptions mark_rule(int max_length, int beam_size, bool close) {
    SearchOptions o;
    o.bos_id = BOS;
    o.eos_id = EOS;
    o.max_length = max_length;
    o.beam_size = beam_size;
    o.token_shapes = &mark_shapes();
    o.close_quotes = o.close_brackets = close;
    return o;
}

// Whether the tokens of kMarkTokens leave a quotation mark or a bracket open, or close a bracket none opened,
// read from their texts.
bool marks_open(const std::vector<int>& tokens) {
    std::vector<std::string> text;
    for (int t : tokens)
        if (t != EOS) text.push_back(kMarkTokens[t]);
    const MarkPairs pairs = marks_pair_up(text);
    return !pairs.quotes || !pairs.brackets;
}

}  // namespace

TEST_CASE("token shapes: the quotation marks and round brackets of a token's text, Moses' escape of '\"' included") {
    CHECK(token_shape("&quot;").quotes == 1);
    CHECK(token_shape("\"").quotes == 1);
    CHECK(token_shape("&quot;@@").quotes == 1);
    CHECK(token_shape("a&quot;b&quot;").quotes == 2);
    CHECK(token_shape("&quot").quotes == 0);  // no escape without its semicolon
    CHECK(token_shape("(").opens == 1);
    CHECK(token_shape(")").closes == 1);
    CHECK(token_shape(")@@").closes == 1);
    const TokenShape both = token_shape("(a)");
    CHECK(both.opens == 1);
    CHECK(both.closes == 1);
    const TokenShape square = token_shape("&#91;");
    CHECK(square.quotes + square.opens + square.closes == 0);
    const TokenShape word = token_shape("Haus");
    CHECK(word.quotes + word.opens + word.closes == 0);
    CHECK(token_shape("<eos>").quotes == 0);
}

TEST_CASE("marks_pair_up: quotation marks in pairs, brackets each opened before it is closed and none left open") {
    using T = std::vector<std::string>;
    CHECK(marks_pair_up(T{"a", "&quot;", "b", "&quot;", "."}).quotes);
    CHECK_FALSE(marks_pair_up(T{"&quot;", "b@@", "c"}).quotes);
    CHECK(marks_pair_up(T{"&quot;", "b", "&quot;", "&quot;", "c", "&quot;"}).quotes);
    CHECK(marks_pair_up(T{"(", "a", "(", "b", ")", ")"}).brackets);
    CHECK_FALSE(marks_pair_up(T{"(", "a"}).brackets);
    CHECK_FALSE(marks_pair_up(T{")", "a", "("}).brackets);  // as many of each, closed before it is opened
    CHECK(marks_pair_up(T{"&#91;", "a"}).brackets);          // square brackets are not counted
    const MarkPairs mixed = marks_pair_up(T{"&quot;", "(", "a", ")"});
    CHECK_FALSE(mixed.quotes);
    CHECK(mixed.brackets);
    CHECK(marks_pair_up(T{}).quotes);
    CHECK(marks_pair_up(T{}).brackets);
    // Token ids read by their shapes (kMarkTokens: 0 &quot;, 1 (, 4 a, 5 ), 8 "@@; <eos> and ids outside have none).
    using I = std::vector<int>;
    CHECK(marks_pair_up(I{0, 4, 8, 4, EOS}, mark_shapes()).quotes);
    CHECK_FALSE(marks_pair_up(I{0, 4, EOS}, mark_shapes()).quotes);
    CHECK_FALSE(marks_pair_up(I{5, 1}, mark_shapes()).brackets);
    CHECK(marks_pair_up(I{1, 4, 5, 99, -1}, mark_shapes()).brackets);
}

TEST_CASE("closing marks: beam search ranks the translations that close their marks above those that leave one open") {
    REQUIRE(SearchOptions().close_steps == 4);
    // <eos> grows likelier with every token, so that the looping model ends.
    const float gain = 0.3f;
    int fixed = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        CAPTURE(seed);
        LoopingModel a({seed}, 9, gain), b({seed}, 9, gain);
        const std::vector<Hypothesis> plain = beam_search(a, mark_rule(24, 4, false));
        const std::vector<Hypothesis> closing = beam_search(b, mark_rule(24, 4, true));
        REQUIRE_FALSE(closing.empty());
        REQUIRE(closing.size() <= 4);
        // Closed and finished, then finished with a mark open, then cut by the length limit: never back up.
        auto rank = [](const Hypothesis& h) { return !h.finished ? 2 : marks_open(h.tokens) ? 1 : 0; };
        for (size_t i = 1; i < closing.size(); i++) CHECK(rank(closing[i - 1]) <= rank(closing[i]));
        for (size_t i = 1; i < closing.size(); i++)
            if (rank(closing[i - 1]) == rank(closing[i])) CHECK(closing[i - 1].score >= closing[i].score);
        if (plain.front().finished && marks_open(plain.front().tokens) && rank(closing.front()) == 0) fixed++;
        // Where the best without the preference closed its marks, or none that closes them came within close_steps,
        // the best is what it was.
        if (plain.front().finished && !marks_open(plain.front().tokens))
            CHECK(closing.front().tokens == plain.front().tokens);
        if (rank(closing.front()) == 1) CHECK(closing.front().tokens == plain.front().tokens);
        // A closed one is found only close_steps past where the search without the preference stopped.
        if (plain.front().finished && rank(closing.front()) == 0) {
            size_t stop = 0;
            for (const Hypothesis& h : plain) stop = std::max(stop, h.finished ? h.tokens.size() : 0);
            CHECK(closing.front().tokens.size() <= stop + 4);
        }
    }
    CHECK(fixed >= 5);  // the synthetic model's best does leave marks open, and the rule finds one that closes them
}

