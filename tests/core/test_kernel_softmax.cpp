#include "kernels/softmax.h"
#include "reference.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace attend;
namespace ref = attend::reference;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
}

TEST_CASE("softmax_forward matches the double reference on odd shapes") {
    std::mt19937 rng(1);
    for (int N : {1, 3, 7})
        for (int C : {1, 3, 7, 16, 17, 33, 100, 1000}) {
            auto x = ref::random_floats(rng, (size_t)N * C, -8.0f, 8.0f);
            std::vector<float> y(x.size());
            softmax_forward(y.data(), x.data(), N, C);
            ref::check_close(y.data(), ref::softmax(x.data(), N, C), 1e-7, 2e-6,
                             "softmax N=" + std::to_string(N) + " C=" + std::to_string(C));
        }
}

TEST_CASE("log_softmax_forward matches the double reference on odd shapes") {
    std::mt19937 rng(2);
    for (int N : {1, 5})
        for (int C : {1, 3, 17, 33, 257}) {
            auto x = ref::random_floats(rng, (size_t)N * C, -8.0f, 8.0f);
            std::vector<float> y(x.size());
            log_softmax_forward(y.data(), x.data(), N, C);
            ref::check_close(y.data(), ref::log_softmax(x.data(), N, C), 2e-6, 2e-6,
                             "log_softmax C=" + std::to_string(C));
        }
}

TEST_CASE("softmax of logits of +-1e4 is finite and correct") {
    // Offsets of 0.5 are exact in float at this magnitude, so the reference sees the same logits.
    std::vector<float> x = {1e4f, 1e4f - 0.5f, -1e4f, 1e4f - 3.0f, -1e4f + 1.0f, 9999.0f, 1e4f, -1e4f, 0.0f};
    const int C = (int)x.size();
    std::vector<float> y(C), ly(C);
    softmax_forward(y.data(), x.data(), 1, C);
    log_softmax_forward(ly.data(), x.data(), 1, C);
    for (int c = 0; c < C; ++c) {
        CHECK(std::isfinite(y[c]));
        CHECK(std::isfinite(ly[c]));
    }
    ref::check_close(y.data(), ref::softmax(x.data(), 1, C), 1e-7, 2e-6, "softmax +-1e4");
    ref::check_close(ly.data(), ref::log_softmax(x.data(), 1, C), 1e-4, 1e-6, "log_softmax +-1e4");
}

TEST_CASE("an all -inf row gives zero probabilities and -inf log-probabilities, never NaN") {
    for (int C : {1, 5, 16, 40}) {
        std::vector<float> x(2 * C, -kInf), y(2 * C, 7.0f), ly(2 * C, 7.0f);
        for (int c = 0; c < C; ++c) x[C + c] = (float)c;  // second row is ordinary
        softmax_forward(y.data(), x.data(), 2, C);
        log_softmax_forward(ly.data(), x.data(), 2, C);
        for (int c = 0; c < C; ++c) {
            CHECK(y[c] == 0.0f);
            CHECK(ly[c] == -kInf);
        }
        ref::check_close(y.data() + C, ref::softmax(x.data() + C, 1, C), 1e-7, 2e-6, "ordinary row");
    }
}

TEST_CASE("softmax_row works in place, skips -inf entries and returns the log-sum-exp") {
    std::vector<float> x = {0.5f, -kInf, 2.0f, -1.0f, -kInf};
    const auto want = ref::softmax(x.data(), 1, 5);
    double lse = std::log(std::exp(0.5) + std::exp(2.0) + std::exp(-1.0));
    const float got_lse = softmax_row(x.data(), x.data(), 5);
    CHECK(got_lse == doctest::Approx(lse).epsilon(1e-6));
    ref::check_close(x.data(), want, 1e-7, 2e-6, "softmax_row in place");
    CHECK(x[1] == 0.0f);
    CHECK(x[4] == 0.0f);
}

TEST_CASE("log_softmax_at is log_softmax_forward's entry, bit for bit, without writing the row") {
    std::mt19937 rng(7);
    for (int C : {1, 5, 16, 33, 9712}) {
        std::vector<float> x = ref::random_floats(rng, C, -30.0f, 30.0f), y(C);
        log_softmax_forward(y.data(), x.data(), 1, C);
        for (int i : {0, C / 2, C - 1}) {
            const float at = log_softmax_at(x.data(), C, i);
            CHECK(std::memcmp(&at, &y[i], sizeof(float)) == 0);
        }
    }
    std::vector<float> all_inf(9, -kInf);
    CHECK(log_softmax_at(all_inf.data(), 9, 4) == -kInf);
}
