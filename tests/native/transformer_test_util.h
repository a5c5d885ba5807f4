// Helpers shared by the transformer-side tests: deterministic random inputs, double-precision central
// differences, and the comparison metric used everywhere on this side:
//     relative_error(got, ref) = max_i |got_i - ref_i| / max(max_i |ref_i|, 1e-30)
// i.e. the worst absolute error scaled by the largest reference magnitude (robust to near-zero entries).
#pragma once
#include "io/safetensors.h"
#include "model/parameter_store.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attend_test {

// Small deterministic generator (splitmix64) so tests do not depend on <random>'s implementation.
struct Rng {
    uint64_t state;
    explicit Rng(uint64_t seed) : state(seed) {}
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform(double lo = -1.0, double hi = 1.0) { return lo + (hi - lo) * double(next() >> 11) * 0x1.0p-53; }
    int integer(int n) { return int(next() % uint64_t(n)); }
};

inline std::vector<float> random_floats(size_t n, Rng& rng, double scale = 1.0) {
    std::vector<float> v(n);
    for (auto& x : v) x = float(rng.uniform(-scale, scale));
    return v;
}

inline std::vector<double> to_double(const std::vector<float>& v) {
    return std::vector<double>(v.begin(), v.end());
}
inline std::vector<double> to_double(const float* p, size_t n) {
    return std::vector<double>(p, p + n);
}

template <class A, class B>
double relative_error(const A& got, const B& ref) {
    double worst = 0.0, scale = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        worst = std::max(worst, std::fabs(double(got[i]) - double(ref[i])));
        scale = std::max(scale, std::fabs(double(ref[i])));
    }
    return worst / std::max(scale, 1e-30);
}

inline double relative_error(const float* got, const float* ref, size_t n) {
    return relative_error(std::vector<double>(got, got + n), std::vector<double>(ref, ref + n));
}

// Central differences of a scalar double function with respect to every entry of `x`.
inline std::vector<double> numerical_gradient(const std::function<double()>& f, std::vector<double>& x,
                                              double eps = 1e-6) {
    std::vector<double> g(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const double saved = x[i];
        x[i] = saved + eps;
        const double plus = f();
        x[i] = saved - eps;
        const double minus = f();
        x[i] = saved;
        g[i] = (plus - minus) / (2 * eps);
    }
    return g;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

}  // namespace attend_test

// ---- fixtures (tests/fixtures/*.safetensors written by tools/fixtures_transformer.py)
namespace attend_test {

inline attend::SafeTensors load_fixture(const std::string& name) {
    return attend::SafeTensors::from_file(std::string(ATTEND_FIXTURES_DIR) + "/" + name);
}

inline std::vector<int64_t> shape64(const std::vector<int>& shape) {
    return {shape.begin(), shape.end()};
}

// Copies `<prefix><name>` for every tensor of the store into its values (shapes must match exactly).
inline void load_parameters(attend::ParameterStore& store, const attend::SafeTensors& file, const std::string& prefix) {
    for (const auto& spec : store.specs())
        file.read_floats(prefix + spec.name, store.value_at(spec.offset), shape64(spec.shape));
}

}  // namespace attend_test
