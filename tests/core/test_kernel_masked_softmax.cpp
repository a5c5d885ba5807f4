#include "kernels/masked_softmax.h"
#include "kernels/softmax.h"
#include "reference.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

using namespace attend;
namespace ref = attend::reference;

namespace {

// Each mask kind alone and the merges of seed 002 (key padding + bool attn_mask, key padding + float attn_mask),
// causal with an offset, and per-query valid lengths.
const unsigned kMaskCombos[] = {
    0,
    ref::kValidLens,
    ref::kValidLensPerQuery,
    ref::kKeyPadding,
    ref::kCausal,
    ref::kBoolMask,
    ref::kAdditive,
    ref::kBoolMask | ref::kPerHead,
    ref::kAdditive | ref::kPerHead,
    ref::kKeyPadding | ref::kBoolMask,
    ref::kKeyPadding | ref::kAdditive,
    ref::kKeyPadding | ref::kAdditive | ref::kPerHead,
    ref::kValidLens | ref::kCausal | ref::kBoolMask | ref::kAdditive,
};

void check_rows_finite_and_normalised(const std::vector<float>& y, const std::vector<double>& want, int Tk) {
    for (size_t r = 0; r * Tk < y.size(); ++r) {
        double got_sum = 0.0, want_sum = 0.0;
        for (int j = 0; j < Tk; ++j) {
            REQUIRE(std::isfinite(y[r * Tk + j]));
            got_sum += y[r * Tk + j];
            want_sum += want[r * Tk + j];
        }
        // Either a distribution or, for a fully masked row, all zeros.
        CHECK(got_sum == doctest::Approx(want_sum).epsilon(1e-5));
    }
}

}  // namespace

TEST_CASE("masked_softmax_forward matches the reference for each mask kind and their merges") {
    std::mt19937 rng(3);
    struct Shape { int B, H, Tq, Tk; };
    for (Shape s : {Shape{1, 1, 1, 1}, Shape{2, 1, 3, 7}, Shape{2, 3, 5, 17}, Shape{3, 2, 4, 33}, Shape{1, 2, 9, 100}})
        for (unsigned kinds : kMaskCombos) {
            const int offset = (kinds & ref::kCausal) ? s.Tk - s.Tq : 0;
            auto owned = ref::random_mask(rng, kinds, s.B, s.H, s.Tq, s.Tk, offset);
            auto x = ref::random_floats(rng, (size_t)s.B * s.H * s.Tq * s.Tk, -5.0f, 5.0f);
            std::vector<float> y(x.size());
            masked_softmax_forward(y.data(), x.data(), owned.mask, s.B, s.H, s.Tq, s.Tk);
            const auto want = ref::masked_softmax(x.data(), owned.mask, s.B, s.H, s.Tq, s.Tk);
            const std::string what = "masked_softmax kinds=" + std::to_string(kinds) + " B=" + std::to_string(s.B) +
                                     " H=" + std::to_string(s.H) + " Tq=" + std::to_string(s.Tq) +
                                     " Tk=" + std::to_string(s.Tk);
            ref::check_close(y.data(), want, 1e-7, 2e-6, what);
            check_rows_finite_and_normalised(y, want, s.Tk);
        }
}

TEST_CASE("masked_softmax: no mask equals softmax, in place works") {
    std::mt19937 rng(4);
    auto x = ref::random_floats(rng, 6 * 19);
    std::vector<float> a(x.size()), b = x;
    softmax_forward(a.data(), x.data(), 6, 19);
    masked_softmax_forward(b.data(), b.data(), AttnMask{}, 2, 1, 3, 19);
    for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
}

TEST_CASE("masked_softmax: valid length 0 and fully masked rows give zeros, not NaN (d2l would give uniform)") {
    const int B = 2, Tq = 2, Tk = 4;
    std::vector<float> x = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f,
                            0.1f, 0.9f, 0.3f, 0.4f, 1.5f, 0.6f, 0.7f, 0.8f};
    std::vector<int> valid = {0, 3};
    AttnMask mask;
    mask.valid_lens = valid.data();
    std::vector<float> y(x.size(), 7.0f);
    masked_softmax_forward(y.data(), x.data(), mask, B, 1, Tq, Tk);
    for (int j = 0; j < 8; ++j) CHECK(y[j] == 0.0f);
    for (int i = 0; i < 2; ++i) {
        CHECK(y[8 + i * 4 + 3] == 0.0f);
        CHECK(y[8 + i * 4] + y[8 + i * 4 + 1] + y[8 + i * 4 + 2] == doctest::Approx(1.0f));
    }
    ref::check_close(y.data(), ref::masked_softmax(x.data(), mask, B, 1, Tq, Tk), 1e-7, 2e-6, "valid_lens [0, 3]");

    // An additive mask of -inf everywhere is also fully masked.
    std::vector<float> all_inf(Tq * Tk, -std::numeric_limits<float>::infinity());
    AttnMask additive;
    additive.additive = all_inf.data();
    masked_softmax_forward(y.data(), x.data(), additive, B, 1, Tq, Tk);
    for (float v : y) CHECK(v == 0.0f);
}

TEST_CASE("masked_softmax of logits of +-1e4 is finite and correct") {
    const int Tk = 19;
    std::vector<float> x(2 * Tk);
    for (int j = 0; j < 2 * Tk; ++j) x[j] = (j % 3 == 0 ? 1e4f : -1e4f) + 0.5f * (j % 5);
    std::vector<uint8_t> pad(2 * Tk, 0);
    pad[0] = pad[3] = 1;
    AttnMask mask;
    mask.key_padding = pad.data();
    std::vector<float> y(x.size());
    masked_softmax_forward(y.data(), x.data(), mask, 2, 1, 1, Tk);
    for (float v : y) CHECK(std::isfinite(v));
    ref::check_close(y.data(), ref::masked_softmax(x.data(), mask, 2, 1, 1, Tk), 1e-7, 2e-6, "+-1e4 logits");
}
