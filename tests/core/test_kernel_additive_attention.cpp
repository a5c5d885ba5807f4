#include "kernels/additive_attention.h"
#include "reference.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

using namespace attend;
namespace ref = attend::reference;

TEST_CASE("additive_attention_forward matches the reference on odd shapes and masks") {
    std::mt19937 rng(11);
    struct Shape { int B, Tq, Tk, Hd, Dv; };
    for (Shape s : {Shape{1, 1, 1, 1, 1}, Shape{2, 1, 7, 3, 5}, Shape{3, 4, 17, 8, 4}, Shape{2, 3, 33, 17, 7},
                    Shape{1, 2, 10, 64, 33}})
        for (unsigned kinds : {0u, (unsigned)ref::kValidLens, (unsigned)ref::kValidLensPerQuery,
                               (unsigned)(ref::kKeyPadding | ref::kAdditive)}) {
            auto owned = ref::random_mask(rng, kinds, s.B, 1, s.Tq, s.Tk);
            auto qp = ref::random_floats(rng, (size_t)s.B * s.Tq * s.Hd, -2.0f, 2.0f);
            auto kp = ref::random_floats(rng, (size_t)s.B * s.Tk * s.Hd, -2.0f, 2.0f);
            auto wv = ref::random_floats(rng, s.Hd);
            auto values = ref::random_floats(rng, (size_t)s.B * s.Tk * s.Dv);
            std::vector<float> out((size_t)s.B * s.Tq * s.Dv, 7.0f), probs((size_t)s.B * s.Tq * s.Tk, 7.0f);
            additive_attention_forward(out.data(), probs.data(), qp.data(), kp.data(), wv.data(), values.data(),
                                       owned.mask, s.B, s.Tq, s.Tk, s.Hd, s.Dv);
            const auto want = ref::additive_attention(qp.data(), kp.data(), wv.data(), values.data(), owned.mask,
                                                      s.B, s.Tq, s.Tk, s.Hd, s.Dv);
            const std::string what = "kinds=" + std::to_string(kinds) + " Tk=" + std::to_string(s.Tk) +
                                     " Hd=" + std::to_string(s.Hd);
            ref::check_close(out.data(), want.out, 1e-5, 1e-4, "additive out " + what);
            ref::check_close(probs.data(), want.probs, 1e-6, 1e-4, "additive probs " + what);

            std::vector<float> scores((size_t)s.B * s.Tq * s.Tk);
            additive_attention_scores(scores.data(), qp.data(), kp.data(), wv.data(), s.B, s.Tq, s.Tk, s.Hd);
            std::vector<double> want_scores(scores.size());
            for (int b = 0; b < s.B; ++b)
                for (int i = 0; i < s.Tq; ++i)
                    for (int j = 0; j < s.Tk; ++j) {
                        double acc = 0.0;
                        for (int c = 0; c < s.Hd; ++c)
                            acc += (double)wv[c] * std::tanh((double)qp[((size_t)b * s.Tq + i) * s.Hd + c] +
                                                             (double)kp[((size_t)b * s.Tk + j) * s.Hd + c]);
                        want_scores[((size_t)b * s.Tq + i) * s.Tk + j] = acc;
                    }
            ref::check_close(scores.data(), want_scores, 1e-5, 1e-4, "additive scores " + what);
        }
}

TEST_CASE("additive attention: logits of +-1e4 (large w_v) stay finite and correct") {
    const int Tk = 9, Hd = 3;
    std::vector<float> qp = {3.0f, -3.0f, 0.5f}, kp(Tk * Hd), wv = {4000.0f, -3000.0f, 3000.0f}, values(Tk * 2);
    std::mt19937 rng(12);
    kp = ref::random_floats(rng, Tk * Hd, -3.0f, 3.0f);
    values = ref::random_floats(rng, Tk * 2);
    std::vector<float> out(2), probs(Tk);
    additive_attention_forward(out.data(), probs.data(), qp.data(), kp.data(), wv.data(), values.data(), AttnMask{},
                               1, 1, Tk, Hd, 2);
    for (float p : probs) CHECK(std::isfinite(p));
    const auto want = ref::additive_attention(qp.data(), kp.data(), wv.data(), values.data(), AttnMask{}, 1, 1,
                                              Tk, Hd, 2);
    // Scores of magnitude 1e4 carry float rounding of about 1e-3, which moves the weights by about 0.1 %.
    ref::check_close(out.data(), want.out, 1e-4, 3e-3, "out");
    ref::check_close(probs.data(), want.probs, 1e-4, 3e-3, "probs");
}

TEST_CASE("seed 000: additive attention over equal keys averages the valid values ([2,3,4,5], [10,11,12,13])") {
    // d2l: queries normal(0,1,(2,1,20)), keys ones(2,10,2), W_q 20->8, W_k 2->8, w_v 8->1 (random weights),
    // values arange(40).reshape(1,10,4).repeat(2,1,1), valid_lens [2, 6]. All keys are equal, so the weights
    // are uniform over the valid keys whatever the projections are.
    const int B = 2, Tq = 1, Tk = 10, Dq = 20, Dk = 2, Hd = 8, Dv = 4;
    std::mt19937 rng(13);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> queries(B * Tq * Dq), keys(B * Tk * Dk, 1.0f), values(B * Tk * Dv);
    for (auto& x : queries) x = normal(rng);
    for (int b = 0; b < B; ++b)
        for (int x = 0; x < Tk * Dv; ++x) values[b * Tk * Dv + x] = (float)x;
    // nn.Linear(in, out, bias=False): y = x W^T, W: [out, in], initialised uniform(-1/sqrt(in), 1/sqrt(in)).
    auto W_q = ref::random_floats(rng, Hd * Dq, -1.0f / std::sqrt((float)Dq), 1.0f / std::sqrt((float)Dq));
    auto W_k = ref::random_floats(rng, Hd * Dk, -1.0f / std::sqrt((float)Dk), 1.0f / std::sqrt((float)Dk));
    auto w_v = ref::random_floats(rng, Hd, -1.0f / std::sqrt((float)Hd), 1.0f / std::sqrt((float)Hd));
    auto project = [](const std::vector<float>& x, const std::vector<float>& W, int rows, int in, int out) {
        std::vector<float> y((size_t)rows * out, 0.0f);
        for (int r = 0; r < rows; ++r)
            for (int o = 0; o < out; ++o)
                for (int i = 0; i < in; ++i) y[r * out + o] += x[r * in + i] * W[o * in + i];
        return y;
    };
    auto qp = project(queries, W_q, B * Tq, Dq, Hd), kp = project(keys, W_k, B * Tk, Dk, Hd);
    std::vector<int> valid = {2, 6};
    AttnMask mask;
    mask.valid_lens = valid.data();
    std::vector<float> out(B * Tq * Dv), probs(B * Tq * Tk);
    additive_attention_forward(out.data(), probs.data(), qp.data(), kp.data(), w_v.data(), values.data(), mask, B,
                               Tq, Tk, Hd, Dv);
    const float want[2][4] = {{2, 3, 4, 5}, {10, 11, 12, 13}};
    for (int b = 0; b < B; ++b)
        for (int d = 0; d < Dv; ++d) CHECK(out[b * Dv + d] == doctest::Approx(want[b][d]).epsilon(1e-5));
    for (int j = 0; j < Tk; ++j) {
        CHECK(probs[j] == doctest::Approx(j < 2 ? 0.5 : 0.0));
        CHECK(probs[Tk + j] == doctest::Approx(j < 6 ? 1.0 / 6.0 : 0.0));
    }
}
