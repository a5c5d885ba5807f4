// Finite-difference gradient checks shared by the backward tests.
//
// Pattern: pick a random projection R of the output, so loss = sum(out * R) and dout = R; run the backward to
// get analytic gradients; then nudge each input by +-eps and difference the loss.
//  - Preferred: the loss is computed by a double-precision scalar reference of the forward kept in the test,
//    so central differences with eps ~1e-6 are accurate to ~1e-8 and the tolerance can be tight (1e-5 rel).
//  - Else: the loss is the float product forward, evaluated in double; use eps 1e-2..1e-3 and a stated,
//    looser tolerance (float rounding of the loss is ~1e-7 * |loss| / eps).
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gradcheck {

// Deterministic values in [lo, hi) (xorshift; tests must not depend on global RNG state).
inline std::vector<float> random_vector(size_t n, uint64_t seed, float lo = -1.f, float hi = 1.f) {
    std::vector<float> v(n);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
    for (auto& x : v) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x = lo + (hi - lo) * float((s >> 40) & 0xFFFFFF) / float(1 << 24);
    }
    return v;
}

template <class T>
std::vector<double> to_double(const std::vector<T>& v) {
    return std::vector<double>(v.begin(), v.end());
}

// Central differences of loss() with respect to x[0..n): x is perturbed in place and restored.
template <class T, class LossFn>
std::vector<double> numerical_gradient(T* x, size_t n, LossFn&& loss, double eps) {
    std::vector<double> g(n);
    for (size_t i = 0; i < n; ++i) {
        const T saved = x[i];
        x[i] = T(double(saved) + eps);
        const double plus = loss();
        x[i] = T(double(saved) - eps);
        const double minus = loss();
        x[i] = saved;
        // The actual step may differ from 2*eps when T is float.
        const double step = double(T(double(saved) + eps)) - double(T(double(saved) - eps));
        g[i] = (plus - minus) / step;
    }
    return g;
}

struct Comparison {
    double max_abs_error = 0;
    double max_rel_error = 0;  // |a - n| / max(|a|, |n|, floor)
    size_t worst = 0;
    bool ok = true;
};

// Element-wise |analytic - numeric| <= atol + rtol * max(|analytic|, |numeric|).
template <class A, class N>
Comparison compare(const A* analytic, const N* numeric, size_t n, double rtol, double atol) {
    Comparison c;
    double worst_excess = -1;
    for (size_t i = 0; i < n; ++i) {
        const double a = double(analytic[i]), b = double(numeric[i]);
        const double err = std::fabs(a - b);
        const double scale = std::max(std::fabs(a), std::fabs(b));
        const double allowed = atol + rtol * scale;
        c.max_abs_error = std::max(c.max_abs_error, err);
        c.max_rel_error = std::max(c.max_rel_error, err / std::max(scale, 1e-12));
        if (!(err <= allowed)) c.ok = false;  // NaN fails too
        const double excess = err - allowed;
        if (excess > worst_excess) {
            worst_excess = excess;
            c.worst = i;
        }
    }
    return c;
}

// doctest assertion with a message that names the tensor and the worst element.
template <class A, class N>
void check_close(const std::string& what, const A* analytic, const N* numeric, size_t n, double rtol, double atol) {
    Comparison c = compare(analytic, numeric, n, rtol, atol);
    INFO(what << ": n=" << n << " max_abs=" << c.max_abs_error << " max_rel=" << c.max_rel_error << " worst[" << c.worst
              << "] analytic=" << (n ? double(analytic[c.worst]) : 0.0)
              << " numeric=" << (n ? double(numeric[c.worst]) : 0.0) << " (rtol " << rtol << ", atol " << atol << ")");
    CHECK(c.ok);
}

template <class A, class N>
void check_close(const std::string& what, const std::vector<A>& analytic, const std::vector<N>& numeric, double rtol,
                 double atol) {
    REQUIRE(analytic.size() == numeric.size());
    check_close(what, analytic.data(), numeric.data(), analytic.size(), rtol, atol);
}

// The parity metric of the PyTorch fixture tests (same as the transformer side's):
//   max_i |got_i - ref_i| / max(max_i |ref_i|, 1e-30)
// the worst absolute error scaled by the largest reference magnitude.
template <class A, class R>
double parity_error(const A* got, const R* ref, size_t n) {
    double worst = 0, scale = 0;
    for (size_t i = 0; i < n; ++i) {
        const double e = std::fabs(double(got[i]) - double(ref[i]));
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
        scale = std::max(scale, std::fabs(double(ref[i])));
    }
    return worst / std::max(scale, 1e-30);
}

// doctest check of parity_error <= tol, naming the tensor.
template <class A, class R>
void check_parity(const std::string& what, const std::vector<A>& got, const std::vector<R>& ref, double tol = 1e-4) {
    REQUIRE_MESSAGE(got.size() == ref.size(), what << ": " << got.size() << " values, reference has " << ref.size());
    const double e = parity_error(got.data(), ref.data(), got.size());
    INFO(what << ": parity error " << e << " (max abs error / max |ref|), tolerance " << tol);
    CHECK(e <= tol);
}

}  // namespace gradcheck
