// The decoding-step kernels: linear_rows_forward (few rows, weights read once; float and half-float weights) and
// attention_step_forward (one query over cached keys), against double-precision references.
#include "io/safetensors.h"  // float_to_half, half_to_float
#include "kernels/attention_step.h"
#include "kernels/linear_rows.h"
#include "reference.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace attend;
namespace ref = attend::reference;

namespace {

// out [N,OC] = x [N,IC] w^T + b, in double.
std::vector<double> linear_reference(const std::vector<float>& x, const std::vector<float>& w, const float* b, int N,
                                     int IC, int OC) {
    std::vector<double> out(size_t(N) * OC);
    for (int r = 0; r < N; ++r)
        for (int o = 0; o < OC; ++o) {
            double s = b ? b[o] : 0.0;
            for (int i = 0; i < IC; ++i) s += double(x[size_t(r) * IC + i]) * w[size_t(o) * IC + i];
            out[size_t(r) * OC + o] = s;
        }
    return out;
}

}  // namespace

TEST_CASE("linear_rows_forward: few rows against the double reference (1e-5), with and without bias") {
    std::mt19937 rng(11);
    for (int N : {1, 2, 5, 9})
        for (int IC : {1, 3, 16, 33, 128, 256})
            for (int OC : {1, 7, 16, 37, 130}) {
                CAPTURE(N);
                CAPTURE(IC);
                CAPTURE(OC);
                const std::vector<float> x = ref::random_floats(rng, size_t(N) * IC);
                const std::vector<float> w = ref::random_floats(rng, size_t(OC) * IC);
                const std::vector<float> b = ref::random_floats(rng, OC);
                for (bool with_bias : {false, true}) {
                    std::vector<float> out(size_t(N) * OC, NAN);
                    linear_rows_forward(out.data(), x.data(), w.data(), with_bias ? b.data() : nullptr, N, IC, OC);
                    ref::check_close(out.data(), linear_reference(x, w, with_bias ? b.data() : nullptr, N, IC, OC), 1e-5,
                                     1e-5, "linear_rows_forward");
                }
            }
}

TEST_CASE("linear_rows_forward_f16 gives bit for bit what linear_rows_forward gives on the converted weights") {
    std::mt19937 rng(12);
    for (int N : {1, 3, 5})
        for (int IC : {5, 32, 128, 256, 600})
            for (int OC : {3, 16, 45, 257}) {
                CAPTURE(N);
                CAPTURE(IC);
                CAPTURE(OC);
                const std::vector<float> x = ref::random_floats(rng, size_t(N) * IC);
                std::vector<float> w = ref::random_floats(rng, size_t(OC) * IC);
                std::vector<uint16_t> w16(w.size());
                for (size_t i = 0; i < w.size(); ++i) {
                    w16[i] = float_to_half(w[i]);
                    w[i] = half_to_float(w16[i]);
                }
                const std::vector<float> b = ref::random_floats(rng, OC);
                std::vector<float> want(size_t(N) * OC), got(size_t(N) * OC, NAN);
                linear_rows_forward(want.data(), x.data(), w.data(), b.data(), N, IC, OC);
                linear_rows_forward_f16(got.data(), x.data(), w16.data(), b.data(), N, IC, OC);
                CHECK(std::memcmp(want.data(), got.data(), sizeof(float) * want.size()) == 0);
            }
}

TEST_CASE("attention_step_forward: one query over Tk cached keys against the double reference (1e-5)") {
    std::mt19937 rng(13);
    for (int D : {1, 5, 16, 32, 64})
        for (int Tk : {1, 2, 7, 40, 130}) {
            CAPTURE(D);
            CAPTURE(Tk);
            const std::vector<float> q = ref::random_floats(rng, D, -2.0f, 2.0f);
            const std::vector<float> k = ref::random_floats(rng, size_t(Tk) * D, -2.0f, 2.0f);
            const std::vector<float> v = ref::random_floats(rng, size_t(Tk) * D);
            const double scale = 1.0 / std::sqrt(double(D));
            std::vector<double> p(Tk), want(D, 0.0);
            double m = -INFINITY, l = 0;
            for (int j = 0; j < Tk; ++j) {
                double s = 0;
                for (int d = 0; d < D; ++d) s += double(q[d]) * k[size_t(j) * D + d];
                p[j] = s * scale;
                m = std::max(m, p[j]);
            }
            for (int j = 0; j < Tk; ++j) l += p[j] = std::exp(p[j] - m);
            for (int j = 0; j < Tk; ++j) {
                p[j] /= l;
                for (int d = 0; d < D; ++d) want[d] += p[j] * v[size_t(j) * D + d];
            }
            std::vector<float> out(D, NAN), probs(Tk, NAN), scores(Tk);
            attention_step_forward(out.data(), probs.data(), scores.data(), q.data(), k.data(), v.data(), Tk, D);
            ref::check_close(out.data(), want, 1e-5, 1e-5, "out");
            ref::check_close(probs.data(), p, 1e-6, 1e-5, "probs");
            std::vector<float> again(D, NAN);
            attention_step_forward(again.data(), nullptr, scores.data(), q.data(), k.data(), v.data(), Tk, D);
            CHECK(std::memcmp(again.data(), out.data(), sizeof(float) * D) == 0);  // probs or not: same output
        }
}

TEST_CASE("attention_step_forward: no keys (all masked) gives a zero output") {
    std::vector<float> q(8, 1.0f), out(8, NAN);
    attention_step_forward(out.data(), nullptr, nullptr, q.data(), nullptr, nullptr, 0, 8);
    for (float o : out) CHECK(o == 0.0f);
}
