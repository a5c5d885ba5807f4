#include "train/dropout.h"

namespace attend {

void dropout_backward(float* dx, const float* dout, const Dropout& d, int64_t n) {
    if (!d.active()) {
        for (int64_t i = 0; i < n; ++i) dx[i] += dout[i];
        return;
    }
    const float scale = d.scale();
    const int32_t threshold = d.threshold();
    for_each_dropout_block(d, n, [&](int64_t begin, int64_t m, const int32_t* draws) {
        float* g = dx + begin;
        const float* go = dout + begin;
        for (int64_t j = 0; j < m; ++j) g[j] = select_kept(draws[j] >= threshold, g[j] + go[j] * scale, g[j]);
    });
}

}  // namespace attend
