#include "train/layernorm_backward.h"

#include <cstddef>
#include <vector>

namespace attend {

void layernorm_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x, const float* mean,
                        const float* rstd, const float* weight, int N, int C) {
    std::vector<float> norm(C), dnorm(C);
    // Rows run one after another: every row adds into the same dweight/dbias, and N*C is small next to the
    // matrix products around it.
    for (int n = 0; n < N; ++n) {
        const float* xr = x + (size_t)n * C;
        const float* dyr = dout + (size_t)n * C;
        float* dxr = dx + (size_t)n * C;
        const float m = mean[n], s = rstd[n];
        float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
        for (int c = 0; c < C; ++c) {
            norm[c] = (xr[c] - m) * s;
            dnorm[c] = weight ? weight[c] * dyr[c] : dyr[c];
            dnorm_mean += dnorm[c];
            dnorm_norm_mean += dnorm[c] * norm[c];
        }
        dnorm_mean /= C;
        dnorm_norm_mean /= C;
        for (int c = 0; c < C; ++c) {
            if (dbias) dbias[c] += dyr[c];
            if (dweight) dweight[c] += norm[c] * dyr[c];
            dxr[c] += (dnorm[c] - dnorm_mean - norm[c] * dnorm_norm_mean) * s;
        }
    }
}

}  // namespace attend
