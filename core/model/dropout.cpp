#include "model/dropout.h"

#include <cmath>

namespace attend {

float normal_at(uint64_t seed, uint64_t counter) {
    // u1 in (0, 1] so the log is finite.
    const float u1 = 1.0f - uniform_at(seed, 2 * counter);
    const float u2 = uniform_at(seed, 2 * counter + 1);
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.283185307179586f * u2);
}

void dropout_forward(float* out, const float* x, const Dropout& d, int64_t n) {
    if (!d.active()) {
        if (out != x)
            for (int64_t i = 0; i < n; ++i) out[i] = x[i];
        return;
    }
    const float scale = d.scale();
    const int32_t threshold = d.threshold();
    for_each_dropout_block(d, n, [&](int64_t begin, int64_t m, const int32_t* draws) {
        float* o = out + begin;
        const float* xs = x + begin;
        for (int64_t j = 0; j < m; ++j) o[j] = select_kept(draws[j] >= threshold, xs[j] * scale, 0.0f);
    });
}

}  // namespace attend
