#include "train/dropout.h"

namespace attend {

void dropout_backward(float* dx, const float* dout, const Dropout& d, int64_t n) {
    if (!d.active()) {
        for (int64_t i = 0; i < n; ++i) dx[i] += dout[i];
        return;
    }
    const float scale = d.scale();
#pragma omp parallel for if (n > 65536)
    for (int64_t i = 0; i < n; ++i)
        if (d.keep(uint64_t(i))) dx[i] += dout[i] * scale;
}

}  // namespace attend
