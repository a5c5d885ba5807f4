// linear_forward / linear_backward against a double-precision reference; gradients by central differences
// of the double reference of the loss L = sum(out * G) for a fixed random G.
#include "model/linear.h"
#include "train/linear_backward.h"
#include "transformer_test_util.h"

#include <doctest/doctest.h>

using namespace attend;
using namespace attend_test;

namespace {

std::vector<double> linear_reference(const std::vector<double>& x, const std::vector<double>& w,
                                     const std::vector<double>* b, int N, int IC, int OC) {
    std::vector<double> y(size_t(N) * OC);
    for (int n = 0; n < N; ++n)
        for (int o = 0; o < OC; ++o) {
            double s = b ? (*b)[o] : 0.0;
            for (int i = 0; i < IC; ++i) s += x[n * IC + i] * w[o * IC + i];
            y[n * OC + o] = s;
        }
    return y;
}

void check_linear(int N, int IC, int OC, bool with_bias) {
    Rng rng(1234 + N * 7 + IC * 13 + OC);
    auto x = random_floats(size_t(N) * IC, rng), w = random_floats(size_t(OC) * IC, rng), b = random_floats(OC, rng),
         g = random_floats(size_t(N) * OC, rng);
    std::vector<float> y(size_t(N) * OC);
    linear_forward(y.data(), x.data(), w.data(), with_bias ? b.data() : nullptr, N, IC, OC);
    auto xd = to_double(x), wd = to_double(w), bd = to_double(b), gd = to_double(g);
    auto ref = linear_reference(xd, wd, with_bias ? &bd : nullptr, N, IC, OC);
    CHECK(relative_error(y, ref) < 1e-5);

    // Gradients start non-zero to check that they accumulate.
    std::vector<float> dx(x.size(), 0.5f), dw(w.size(), -0.25f), db(b.size(), 1.0f);
    linear_backward(dx.data(), dw.data(), with_bias ? db.data() : nullptr, g.data(), x.data(), w.data(), N, IC, OC);
    auto loss = [&] { return dot(linear_reference(xd, wd, with_bias ? &bd : nullptr, N, IC, OC), gd); };
    auto ndx = numerical_gradient(loss, xd), ndw = numerical_gradient(loss, wd);
    for (auto& v : ndx) v += 0.5;
    for (auto& v : ndw) v -= 0.25;
    CHECK(relative_error(dx, ndx) < 1e-5);
    CHECK(relative_error(dw, ndw) < 1e-5);
    if (with_bias) {
        auto ndb = numerical_gradient(loss, bd);
        for (auto& v : ndb) v += 1.0;
        CHECK(relative_error(db, ndb) < 1e-5);
    } else {
        for (float v : db) CHECK(v == 1.0f);
    }
}

}  // namespace

TEST_CASE("linear: forward and accumulating backward match the double reference (tolerance 1e-5 relative)") {
    check_linear(5, 7, 3, true);
    check_linear(4, 6, 9, false);
}

TEST_CASE("linear: large enough to split over threads, same results") {
    // 64 x 128 x 160 > 1M flops, so the OpenMP path runs; checked against the reference all the same.
    const int N = 64, IC = 128, OC = 160;
    Rng rng(99);
    auto x = random_floats(size_t(N) * IC, rng), w = random_floats(size_t(OC) * IC, rng), b = random_floats(OC, rng),
         g = random_floats(size_t(N) * OC, rng);
    std::vector<float> y(size_t(N) * OC);
    linear_forward(y.data(), x.data(), w.data(), b.data(), N, IC, OC);
    auto xd = to_double(x), wd = to_double(w), bd = to_double(b), gd = to_double(g);
    CHECK(relative_error(y, linear_reference(xd, wd, &bd, N, IC, OC)) < 1e-5);
    std::vector<float> dx(x.size()), dw(w.size()), db(OC);
    linear_backward(dx.data(), dw.data(), db.data(), g.data(), x.data(), w.data(), N, IC, OC);
    std::vector<double> rdx(x.size()), rdw(w.size()), rdb(OC);
    for (int n = 0; n < N; ++n)
        for (int o = 0; o < OC; ++o) {
            rdb[o] += gd[n * OC + o];
            for (int i = 0; i < IC; ++i) {
                rdx[n * IC + i] += gd[n * OC + o] * wd[o * IC + i];
                rdw[o * IC + i] += gd[n * OC + o] * xd[n * IC + i];
            }
        }
    CHECK(relative_error(dx, rdx) < 1e-5);
    CHECK(relative_error(dw, rdw) < 1e-5);
    CHECK(relative_error(db, rdb) < 1e-5);
}
