// Greedy and beam search over a real (randomly initialised) Transformer with key/value caches, checked against
// teacher-forced full recomputation: the cached decoder must pick the same tokens, and every hypothesis' score
// must equal the log-probability that a full forward pass assigns to its tokens.
#include <doctest/doctest.h>

#include "decode/beam_search.h"
#include "decode/greedy_search.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"
#include "translate/transformer_search_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace attend;

namespace {

constexpr int BOS = 2, EOS = 3;

TransformerConfig tiny_config() {
    TransformerConfig c;
    c.model_dim = 16;
    c.heads = 4;
    c.encoder_layers = 2;
    c.decoder_layers = 2;
    c.ffn_dim = 24;
    c.src_vocab = 19;
    c.tgt_vocab = 17;
    c.max_len = 64;
    c.dropout = 0.0f;
    return c;
}

// Weights uniform in [-a, a] from a fixed-seed generator; large enough that the output distribution is peaked.
void randomize(Transformer& model, uint64_t seed, float a) {
    uint64_t s = seed;
    float* w = model.params.values();
    for (size_t i = 0; i < model.params.size(); i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (static_cast<float>((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f) * a;
    }
}

// log-probabilities [T, V] of a teacher-forced pass with decoder input bos + tokens[0..T-1).
std::vector<float> teacher_forced_log_probs(const Transformer& model, const std::vector<int>& src,
                                            const std::vector<int>& tokens) {
    const int S = static_cast<int>(src.size()), T = static_cast<int>(tokens.size()), V = model.config.tgt_vocab;
    std::vector<int> tgt{BOS};
    tgt.insert(tgt.end(), tokens.begin(), tokens.end() - 1);
    TransformerActivations acts;
    plan_transformer(acts, model.config, 1, S, T);
    transformer_forward(acts, model, src.data(), nullptr, tgt.data(), nullptr);
    std::vector<float> lp(static_cast<size_t>(T) * V);
    log_softmax_forward(lp.data(), acts.logits, T, V);
    return lp;
}

// Greedy decoding by recomputing the whole decoder every step (no cache).
std::vector<int> greedy_by_recomputation(const Transformer& model, const std::vector<int>& src, int max_len) {
    const int V = model.config.tgt_vocab;
    std::vector<int> out;
    for (int t = 0; t < max_len; t++) {
        out.push_back(0);  // placeholder for the position being predicted
        std::vector<float> lp = teacher_forced_log_probs(model, src, out);
        out.back() = argmax(lp.data() + static_cast<size_t>(t) * V, V);
        if (out.back() == EOS) break;
    }
    return out;
}

}  // namespace

TEST_CASE("the key/value-cache decoder picks the same tokens as full recomputation") {
    Transformer model(tiny_config(), /*with_grads=*/false);
    size_t longest = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        randomize(model, seed, 0.6f);
        std::vector<int> src{5, 7, 11, 4, 9, 3};
        SearchOptions opt;
        opt.max_length = 12;
        opt.bos_id = BOS;
        opt.eos_id = EOS;
        TransformerSearchModel search(model, src.data(), static_cast<int>(src.size()), opt.max_length);
        Hypothesis greedy = greedy_search(search, opt);
        CAPTURE(seed);
        CHECK(greedy.tokens == greedy_by_recomputation(model, src, opt.max_length));
        longest = std::max(longest, greedy.tokens.size());
    }
    CHECK(longest >= 4);  // the comparison must cover several cached steps, not an immediate <eos>
}

TEST_CASE("beam hypotheses over the Transformer score what a full forward pass gives their tokens") {
    Transformer model(tiny_config(), false);
    randomize(model, 7, 0.6f);
    std::vector<int> src{6, 8, 10, 12, 14, 3};
    for (int beam : {1, 3, 5}) {
        SearchOptions opt;
        opt.beam_size = beam;
        opt.max_length = 10;
        opt.length_penalty = 0.6f;
        opt.bos_id = BOS;
        opt.eos_id = EOS;
        TransformerSearchModel search(model, src.data(), static_cast<int>(src.size()), opt.max_length);
        std::vector<Hypothesis> hyps = beam_search(search, opt);
        REQUIRE(static_cast<int>(hyps.size()) == beam);
        for (const Hypothesis& h : hyps) {
            std::vector<float> lp = teacher_forced_log_probs(model, src, h.tokens);
            double total = 0;
            for (size_t t = 0; t < h.tokens.size(); t++) total += lp[t * model.config.tgt_vocab + h.tokens[t]];
            CAPTURE(beam);
            // float32 sums over <= 10 steps of log-softmax values: 1e-4 relative.
            CHECK(h.log_prob == doctest::Approx(total).epsilon(1e-4));
        }
        if (beam == 1) {
            TransformerSearchModel again(model, src.data(), static_cast<int>(src.size()), opt.max_length);
            CHECK(hyps[0].tokens == greedy_search(again, opt).tokens);
        }
    }
}
