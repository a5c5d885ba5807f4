// An ensemble of step models, as the searches see it: each step is the mean of its members' log-probabilities,
// and select() moves every member's hypotheses alike.
#include <doctest/doctest.h>

#include "decode/beam_search.h"
#include "decode/ensemble_step_model.h"
#include "error.h"
#include "kernels/softmax.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

using namespace attend;

namespace {

constexpr int V = 7, BOS = 1, EOS = 2;

// Logits that depend on each hypothesis' whole history (so that select() matters) and on a seed (so that two
// members differ): a fixed pseudo-random function of (seed, history).
class HistoryModel : public StepModel {
public:
    explicit HistoryModel(uint64_t seed) : hash_(1, seed) {}
    int vocab_size() const override { return V; }
    void step(float* logits, const int* last_tokens, int n) override {
        REQUIRE(n == static_cast<int>(hash_.size()));
        for (int i = 0; i < n; i++) {
            hash_[i] = hash_[i] * 6364136223846793005ULL + static_cast<uint64_t>(last_tokens[i]) + 1442695040888963407ULL;
            for (int v = 0; v < V; v++) {
                const uint64_t h = (hash_[i] ^ (static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
                logits[i * V + v] = static_cast<float>(h >> 40) / static_cast<float>(1 << 24) * 6.0f - 3.0f;
            }
            logits[i * V + EOS] += 0.5f * static_cast<float>(steps_);
        }
        steps_++;
    }
    void select(const int* parents, int n) override {
        std::vector<uint64_t> next(n);
        for (int i = 0; i < n; i++) next[i] = hash_[parents[i]];
        hash_ = std::move(next);
    }

private:
    std::vector<uint64_t> hash_;
    int steps_ = 0;
};

std::vector<float> log_probs(StepModel& m, const std::vector<int>& last) {
    const int n = static_cast<int>(last.size());
    std::vector<float> logits(static_cast<size_t>(n) * V), out(logits.size());
    m.step(logits.data(), last.data(), n);
    log_softmax_forward(out.data(), logits.data(), n, V);
    return out;
}

std::unique_ptr<EnsembleStepModel> ensemble_of(std::vector<uint64_t> seeds) {
    std::vector<std::unique_ptr<StepModel>> members;
    for (uint64_t s : seeds) members.push_back(std::make_unique<HistoryModel>(s));
    return std::make_unique<EnsembleStepModel>(std::move(members));
}

}  // namespace

TEST_CASE("ensemble: each step is the mean of the members' log-probabilities, select() moving every member alike") {
    auto ensemble = ensemble_of({11, 12, 13});
    HistoryModel a(11), b(12), c(13);
    std::vector<int> last = {BOS};
    for (int step = 0; step < 5; step++) {
        std::vector<float> got(last.size() * V);
        ensemble->step(got.data(), last.data(), static_cast<int>(last.size()));
        const std::vector<float> la = log_probs(a, last), lb = log_probs(b, last), lc = log_probs(c, last);
        for (size_t k = 0; k < got.size(); k++) {
            CAPTURE(k);
            CHECK(got[k] == doctest::Approx((la[k] + lb[k] + lc[k]) / 3.0f).epsilon(1e-6));
        }
        // grow to three hypotheses, then reorder and duplicate them
        const std::vector<int> parents = step == 0 ? std::vector<int>{0, 0, 0} : std::vector<int>{2, 0, 0};
        ensemble->select(parents.data(), 3);
        for (HistoryModel* m : {&a, &b, &c}) m->select(parents.data(), 3);
        last = {3 + step % 3, 4, 5};
    }
}

TEST_CASE("ensemble: one member, or one model twice, searches as the model alone") {
    SearchOptions options;
    options.beam_size = 4;
    options.max_length = 12;
    options.bos_id = BOS;
    options.eos_id = EOS;
    HistoryModel alone(5);
    const std::vector<Hypothesis> expected = beam_search(alone, options);
    for (const std::vector<uint64_t>& seeds : {std::vector<uint64_t>{5}, std::vector<uint64_t>{5, 5}}) {
        CAPTURE(seeds.size());
        auto ensemble = ensemble_of(seeds);
        const std::vector<Hypothesis> got = beam_search(*ensemble, options);
        REQUIRE(got.size() == expected.size());
        for (size_t i = 0; i < got.size(); i++) {
            CHECK(got[i].tokens == expected[i].tokens);
            // log_softmax of log-probabilities: the same numbers, up to rounding
            CHECK(got[i].log_prob == doctest::Approx(expected[i].log_prob).epsilon(1e-5));
        }
    }
}

TEST_CASE("ensemble: members must share one vocabulary, and there must be one") {
    CHECK_THROWS_WITH_AS(EnsembleStepModel(std::vector<std::unique_ptr<StepModel>>{}),
                         "an ensemble needs at least one model", Error);
    class Wider : public HistoryModel {
    public:
        Wider() : HistoryModel(1) {}
        int vocab_size() const override { return V + 1; }
    };
    std::vector<std::unique_ptr<StepModel>> members;
    members.push_back(std::make_unique<HistoryModel>(1));
    members.push_back(std::make_unique<Wider>());
    CHECK_THROWS_WITH_AS(EnsembleStepModel(std::move(members)),
                         "the models of an ensemble must share one target vocabulary (sizes 7 and 8)", Error);
}
