// layernorm, activations, embedding, positional encoding, argmax/topk.
#include "error.h"
#include "kernels/activations.h"
#include "kernels/embedding.h"
#include "kernels/layernorm.h"
#include "kernels/positional_encoding.h"
#include "kernels/topk.h"
#include "reference.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace attend;
namespace ref = attend::reference;

TEST_CASE("layernorm_forward matches torch.nn.LayerNorm semantics (biased variance), with mean and rstd") {
    std::mt19937 rng(20);
    for (int C : {1, 3, 7, 17, 33, 256, 1000}) {
        const int N = 5;
        auto x = ref::random_floats(rng, (size_t)N * C, -3.0f, 5.0f);
        x[0] += 100.0f;  // a large mean in one row: the two-pass variance must hold up
        auto w = ref::random_floats(rng, C, 0.5f, 1.5f), b = ref::random_floats(rng, C);
        std::vector<float> y(x.size()), mean(N), rstd(N);
        layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 1e-5f, N, C);
        std::vector<double> want_mean, want_rstd;
        const auto want = ref::layernorm(x.data(), w.data(), b.data(), 1e-5, N, C, &want_mean, &want_rstd);
        const std::string what = " C=" + std::to_string(C);
        ref::check_close(y.data(), want, 2e-5, 2e-5, "layernorm" + what);
        ref::check_close(mean.data(), want_mean, 1e-5, 1e-6, "mean" + what);
        ref::check_close(rstd.data(), want_rstd, 1e-5, 1e-5, "rstd" + what);
        // Without affine parameters and saved statistics, in place.
        std::vector<float> z = x;
        layernorm_forward(z.data(), nullptr, nullptr, z.data(), nullptr, nullptr, 1e-5f, N, C);
        ref::check_close(z.data(), ref::layernorm(x.data(), nullptr, nullptr, 1e-5, N, C), 2e-5, 2e-5,
                         "layernorm no affine" + what);
    }
}

TEST_CASE("relu, exact-erf gelu and residual add match the reference on odd lengths") {
    std::mt19937 rng(21);
    for (int n : {1, 3, 7, 16, 17, 33, 1001}) {
        auto x = ref::random_floats(rng, n, -6.0f, 6.0f), b = ref::random_floats(rng, n);
        std::vector<float> y(n);
        std::vector<double> want(n);
        relu_forward(y.data(), x.data(), n);
        for (int i = 0; i < n; ++i) want[i] = x[i] > 0 ? x[i] : 0.0;
        ref::check_close(y.data(), want, 0.0, 0.0, "relu n=" + std::to_string(n));
        gelu_forward(y.data(), x.data(), n);
        for (int i = 0; i < n; ++i) want[i] = ref::gelu(x[i]);
        ref::check_close(y.data(), want, 1e-6, 1e-5, "gelu n=" + std::to_string(n));
        residual_forward(y.data(), x.data(), b.data(), n);
        for (int i = 0; i < n; ++i) want[i] = (double)x[i] + b[i];
        ref::check_close(y.data(), want, 0.0, 1e-7, "residual n=" + std::to_string(n));
    }
    // torch 1.13: torch.nn.GELU()(torch.tensor([-3., -1., 0., 0.5, 2.])).tolist()
    std::vector<float> x = {-3.0f, -1.0f, 0.0f, 0.5f, 2.0f}, y(5);
    gelu_forward(y.data(), x.data(), 5);
    const double torch_values[5] = {-0.004049867391586304, -0.1586552858352661, 0.0, 0.3457311987876892, 1.9544999599456787};
    for (int i = 0; i < 5; ++i) CHECK(y[i] == doctest::Approx(torch_values[i]).epsilon(1e-5));
}

TEST_CASE("embedding_forward gathers scaled rows and rejects ids outside [0, V) naming the id") {
    const int V = 5, C = 19, N = 4;
    std::mt19937 rng(22);
    auto table = ref::random_floats(rng, V * C);
    std::vector<int> ids = {4, 0, 2, 4};
    std::vector<float> out(N * C);
    const float scale = std::sqrt((float)C);
    embedding_forward(out.data(), ids.data(), table.data(), scale, N, C, V);
    for (int n = 0; n < N; ++n)
        for (int c = 0; c < C; ++c) CHECK(out[n * C + c] == table[ids[n] * C + c] * scale);

    std::vector<int> bad = {1, 5};
    std::vector<float> untouched(2 * C, 7.0f);
    CHECK_THROWS_WITH_AS(embedding_forward(untouched.data(), bad.data(), table.data(), 1.0f, 2, C, V),
                         doctest::Contains("token id 5"), attend::Error);
    for (float x : untouched) CHECK(x == 7.0f);
    bad = {-1};
    CHECK_THROWS_WITH_AS(embedding_forward(untouched.data(), bad.data(), table.data(), 1.0f, 1, C, V),
                         doctest::Contains("token id -1"), attend::Error);
}

TEST_CASE("positional encoding follows d2l's formula (table and in-place add with an offset)") {
    for (int C : {1, 2, 7, 32}) {
        const int T = 60;
        std::vector<float> P(T * C);
        positional_encoding_table(P.data(), T, C);
        const auto want = ref::positional_encoding(T, C);
        // The angle t / 10000^(2j/C) is a float32 value as in d2l; its rounding grows with t (about 1e-7 * t).
        ref::check_close(P.data(), want, 2e-5, 0.0, "positional_encoding_table C=" + std::to_string(C));
    }
    // d2l values: P[1, 0] = sin(1), P[1, 1] = cos(1), P[2, 2] = sin(2 / 10000^(2/4)) for C = 4.
    std::vector<float> P(3 * 4);
    positional_encoding_table(P.data(), 3, 4);
    CHECK(P[0] == 0.0f);
    CHECK(P[1] == 1.0f);
    CHECK(P[4] == doctest::Approx(std::sin(1.0)));
    CHECK(P[5] == doctest::Approx(std::cos(1.0)));
    CHECK(P[2 * 4 + 2] == doctest::Approx(std::sin(0.02)));

    const int B = 2, T = 3, C = 6, t0 = 5;
    std::mt19937 rng(23);
    auto x = ref::random_floats(rng, B * T * C);
    auto y = x;
    positional_encoding_add(y.data(), B, T, C, t0);
    const auto rows = ref::positional_encoding(T, C, t0);
    std::vector<double> want(x.size());
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < T * C; ++i) want[b * T * C + i] = x[b * T * C + i] + rows[i];
    ref::check_close(y.data(), want, 2e-6, 1e-6, "positional_encoding_add t0=5");
}

TEST_CASE("argmax and topk: descending order, ties broken by the lower index") {
    std::vector<float> x = {0.5f, 2.0f, -1.0f, 2.0f, 0.5f, 3.0f, -7.0f};
    CHECK(argmax(x.data(), (int)x.size()) == 5);
    std::vector<float> tie = {1.0f, 4.0f, 4.0f};
    CHECK(argmax(tie.data(), 3) == 1);
    int idx[5];
    float val[5];
    topk(idx, val, x.data(), (int)x.size(), 5);
    const int want_idx[5] = {5, 1, 3, 0, 4};
    for (int i = 0; i < 5; ++i) {
        CHECK(idx[i] == want_idx[i]);
        CHECK(val[i] == x[want_idx[i]]);
    }
    std::mt19937 rng(24);
    auto r = ref::random_floats(rng, 1000);
    std::vector<int> ri(10);
    std::vector<float> rv(10);
    topk(ri.data(), rv.data(), r.data(), 1000, 10);
    CHECK(ri[0] == argmax(r.data(), 1000));
    for (int i = 1; i < 10; ++i) CHECK(rv[i - 1] >= rv[i]);
    int larger = 0;
    for (float v : r) larger += v > rv[9];
    CHECK(larger == 9);
    CHECK_THROWS_AS(topk(idx, val, x.data(), 3, 4), attend::Error);
    CHECK_THROWS_AS(argmax(x.data(), 0), attend::Error);
    // Vector-length edge cases: the maximum in the tail, in the first lane, repeated across vectors.
    for (int n : {1, 3, 16, 17, 33, 9712}) {
        std::vector<float> v = ref::random_floats(rng, n, -5.0f, 5.0f);
        int want = 0;
        for (int i = 1; i < n; ++i)
            if (v[i] > v[want]) want = i;
        CHECK(argmax(v.data(), n) == want);
        v[n - 1] = 6.0f;
        CHECK(argmax(v.data(), n) == n - 1);
        v[n / 2] = 6.0f;
        CHECK(argmax(v.data(), n) == n / 2);
    }
    // NaNs (a diverged model) are skipped, wherever they are.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> with_nan = {1.0f, nan, 3.0f, nan, 2.0f};
    CHECK(argmax(with_nan.data(), 5) == 2);
    std::vector<float> nan_first(40, -1.0f);
    nan_first[0] = nan;
    nan_first[20] = nan;
    nan_first[21] = 4.0f;
    nan_first[37] = nan;
    CHECK(argmax(nan_first.data(), 40) == 21);
    std::vector<float> all_nan(20, nan);
    CHECK(argmax(all_nan.data(), 20) == 0);
}
