#include "kernels/attention.h"
#include "reference.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

using namespace attend;
namespace ref = attend::reference;

namespace {

struct Shape { int B, H, Tq, Tk, D; };

const unsigned kMaskCombos[] = {
    0,
    ref::kValidLens,
    ref::kValidLensPerQuery,
    ref::kKeyPadding,
    ref::kCausal,
    ref::kBoolMask,
    ref::kAdditive | ref::kPerHead,
    ref::kKeyPadding | ref::kBoolMask,
    ref::kKeyPadding | ref::kAdditive,
    ref::kKeyPadding | ref::kBoolMask | ref::kPerHead,
    ref::kValidLensPerQuery | ref::kCausal | ref::kAdditive,
};

// Runs the fused kernel with and without probs and compares out, probs and row_logsumexp with the reference.
void check_attention(std::mt19937& rng, Shape s, unsigned kinds, float scale = 0.0f) {
    const int offset = (kinds & ref::kCausal) ? s.Tk - s.Tq : 0;
    auto owned = ref::random_mask(rng, kinds, s.B, s.H, s.Tq, s.Tk, offset);
    auto q = ref::random_floats(rng, (size_t)s.B * s.H * s.Tq * s.D);
    auto k = ref::random_floats(rng, (size_t)s.B * s.H * s.Tk * s.D);
    auto v = ref::random_floats(rng, (size_t)s.B * s.H * s.Tk * s.D);
    std::vector<float> out(q.size(), 7.0f), out_no_probs(q.size(), 7.0f);
    std::vector<float> probs((size_t)s.B * s.H * s.Tq * s.Tk, 7.0f), lse((size_t)s.B * s.H * s.Tq, 7.0f);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), owned.mask, s.B, s.H, s.Tq, s.Tk,
                      s.D, scale, lse.data());
    attention_forward(out_no_probs.data(), nullptr, q.data(), k.data(), v.data(), owned.mask, s.B, s.H, s.Tq,
                      s.Tk, s.D, scale);
    const auto want = ref::attention(q.data(), k.data(), v.data(), owned.mask, s.B, s.H, s.Tq, s.Tk, s.D, scale);
    const std::string what = "kinds=" + std::to_string(kinds) + " B=" + std::to_string(s.B) + " H=" +
                             std::to_string(s.H) + " Tq=" + std::to_string(s.Tq) + " Tk=" + std::to_string(s.Tk) +
                             " D=" + std::to_string(s.D);
    ref::check_close(out.data(), want.out, 1e-5, 1e-4, "out " + what);
    ref::check_close(out_no_probs.data(), want.out, 1e-5, 1e-4, "out (no probs) " + what);
    ref::check_close(probs.data(), want.probs, 1e-6, 1e-4, "probs " + what);
    ref::check_close(lse.data(), want.row_logsumexp, 1e-5, 1e-5, "row_logsumexp " + what);

    // The probabilities are the weights the output was formed with: out == probs @ v.
    std::vector<double> mixed(out.size(), 0.0);
    for (size_t bh = 0; bh < (size_t)s.B * s.H; ++bh)
        for (int i = 0; i < s.Tq; ++i)
            for (int j = 0; j < s.Tk; ++j)
                for (int d = 0; d < s.D; ++d)
                    mixed[(bh * s.Tq + i) * s.D + d] +=
                        (double)probs[(bh * s.Tq + i) * s.Tk + j] * v[(bh * s.Tk + j) * s.D + d];
    ref::check_close(out.data(), mixed, 1e-5, 1e-4, "out == probs @ v " + what);
}

}  // namespace

TEST_CASE("attention_forward matches the reference on odd shapes, every mask kind and merge") {
    std::mt19937 rng(5);
    for (Shape s : {Shape{1, 1, 1, 1, 1}, Shape{1, 1, 1, 7, 3}, Shape{2, 3, 3, 7, 1}, Shape{2, 2, 7, 17, 17},
                    Shape{1, 2, 17, 33, 33}, Shape{2, 1, 5, 3, 8}})
        for (unsigned kinds : kMaskCombos) check_attention(rng, s, kinds);
}

TEST_CASE("attention_forward crosses query and key tiles (online softmax over several key tiles)") {
    std::mt19937 rng(6);
    for (unsigned kinds : {0u, (unsigned)ref::kKeyPadding, (unsigned)ref::kCausal,
                           (unsigned)(ref::kValidLensPerQuery | ref::kAdditive)})
        check_attention(rng, Shape{1, 2, 140, 600, 9}, kinds);
    check_attention(rng, Shape{2, 1, 129, 257, 64}, 0);
    check_attention(rng, Shape{1, 1, 65, 300, 5}, 0, 1.0f);  // explicit scale
}

TEST_CASE("attention_forward: causal with a KV-cache offset (Tq < Tk) and one decoding step (Tq = 1)") {
    std::mt19937 rng(7);
    check_attention(rng, Shape{2, 2, 3, 11, 4}, ref::kCausal);
    check_attention(rng, Shape{2, 4, 1, 9, 8}, ref::kCausal | ref::kKeyPadding);
}

TEST_CASE("attention_forward: fully masked rows give a zero output, zero probabilities, -inf logsumexp") {
    const int B = 2, H = 2, Tq = 3, Tk = 5, D = 6;
    std::mt19937 rng(8);
    auto q = ref::random_floats(rng, B * H * Tq * D), k = ref::random_floats(rng, B * H * Tk * D);
    auto v = ref::random_floats(rng, B * H * Tk * D);
    std::vector<int> valid = {0, 5};
    std::vector<uint8_t> pad(B * Tk, 1);  // batch row 1: everything padded too
    AttnMask mask;
    mask.valid_lens = valid.data();
    mask.key_padding = pad.data();
    std::vector<float> out(q.size(), 7.0f), probs(B * H * Tq * Tk, 7.0f), lse(B * H * Tq, 7.0f);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), mask, B, H, Tq, Tk, D, 0.0f,
                      lse.data());
    for (float x : out) CHECK(x == 0.0f);
    for (float x : probs) CHECK(x == 0.0f);
    for (float x : lse) CHECK(x == -std::numeric_limits<float>::infinity());
}

TEST_CASE("attention_forward with logits of +-1e4 is finite and correct") {
    // q = (100, 0, 0), keys with first coordinates in steps of 0.5 in [-100, 100]: scores up to +-1e4, exact in float.
    const int Tq = 2, Tk = 37, D = 3;
    std::mt19937 rng(9);
    std::vector<float> q = {100.0f, 0.0f, 0.0f, -100.0f, 0.0f, 0.0f};
    std::vector<float> k(Tk * D, 0.0f);
    for (int j = 0; j < Tk; ++j) k[j * D] = (j % 2 ? 1.0f : -1.0f) * (100.0f - 0.5f * (j % 7));
    auto v = ref::random_floats(rng, Tk * D);
    std::vector<float> out(Tq * D), probs(Tq * Tk), lse(Tq);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), AttnMask{}, 1, 1, Tq, Tk, D, 1.0f,
                      lse.data());
    for (float x : out) CHECK(std::isfinite(x));
    for (float x : probs) CHECK(std::isfinite(x));
    const auto want = ref::attention(q.data(), k.data(), v.data(), AttnMask{}, 1, 1, Tq, Tk, D, 1.0);
    ref::check_close(out.data(), want.out, 1e-5, 1e-4, "out +-1e4");
    ref::check_close(probs.data(), want.probs, 1e-6, 1e-4, "probs +-1e4");
    ref::check_close(lse.data(), want.row_logsumexp, 1e-3, 1e-6, "row_logsumexp +-1e4");
}

TEST_CASE("seed 000: dot-product attention over equal keys averages the valid values ([2,3,4,5], [10,11,12,13])") {
    // d2l: queries normal(0,1,(2,1,2)), keys ones(2,10,2), values arange(40).reshape(1,10,4).repeat(2,1,1),
    // valid_lens [2, 6]. The kernel has one head dim for q, k and v, so q and k are padded with zeros to D = 4
    // (the dot products do not change) and the scale stays d2l's 1/sqrt(2).
    const int B = 2, Tq = 1, Tk = 10, D = 4;
    std::mt19937 rng(10);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> q(B * Tq * D, 0.0f), k(B * Tk * D, 0.0f), v(B * Tk * D);
    for (int b = 0; b < B; ++b) {
        q[b * D] = normal(rng);
        q[b * D + 1] = normal(rng);
        for (int j = 0; j < Tk; ++j) k[(b * Tk + j) * D] = k[(b * Tk + j) * D + 1] = 1.0f;
        for (int x = 0; x < Tk * D; ++x) v[b * Tk * D + x] = (float)x;
    }
    std::vector<int> valid = {2, 6};
    AttnMask mask;
    mask.valid_lens = valid.data();
    std::vector<float> out(B * Tq * D), probs(B * Tq * Tk);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), mask, B, 1, Tq, Tk, D,
                      1.0f / std::sqrt(2.0f));
    const float want[2][4] = {{2, 3, 4, 5}, {10, 11, 12, 13}};
    for (int b = 0; b < B; ++b)
        for (int d = 0; d < D; ++d) CHECK(out[b * D + d] == doctest::Approx(want[b][d]).epsilon(1e-5));
    for (int j = 0; j < Tk; ++j) {
        CHECK(probs[j] == doctest::Approx(j < 2 ? 0.5 : 0.0));
        CHECK(probs[Tk + j] == doctest::Approx(j < 6 ? 1.0 / 6.0 : 0.0));
    }
}

TEST_CASE("seed 003: the worked Bahdanau step with an unscaled dot product") {
    // s = [0.6, 0.4], h = [[0.9,0.1],[0.7,0.3],[0.2,0.8],[0.1,0.9]]; the article rounds to
    // alpha ~ [0.272, 0.261, 0.236, 0.231] and c ~ [0.4978, 0.5022] (from the rounded weights).
    std::vector<float> s = {0.6f, 0.4f}, h = {0.9f, 0.1f, 0.7f, 0.3f, 0.2f, 0.8f, 0.1f, 0.9f};
    std::vector<float> c(2), alpha(4);
    attention_forward(c.data(), alpha.data(), s.data(), h.data(), h.data(), AttnMask{}, 1, 1, 1, 4, 2, 1.0f);
    // The article's 3-digit weights, and the exact values exp(s.h_j) / sum (0.27157, 0.26092, 0.23609, 0.23142).
    const double article_alpha[4] = {0.272, 0.261, 0.236, 0.231};
    const double exact_alpha[4] = {0.27157, 0.26092, 0.23609, 0.23142};
    for (int j = 0; j < 4; ++j) {
        CHECK(std::fabs(alpha[j] - article_alpha[j]) <= 5e-4);
        CHECK(std::fabs(alpha[j] - exact_alpha[j]) <= 1e-5);
    }
    // The article's context comes from the rounded weights; exactly it is (0.49742, 0.50258).
    CHECK(std::fabs(c[0] - 0.4978) <= 5e-4);
    CHECK(std::fabs(c[1] - 0.5022) <= 5e-4);
    CHECK(std::fabs(c[0] - 0.49742) <= 1e-5);
    CHECK(std::fabs(c[1] - 0.50258) <= 1e-5);
}
