#include "model/nadaraya_watson_backward.h"

#include <cstddef>

namespace attend {

void nadaraya_watson_backward(float* dw, float* dqueries, float* dkeys, float* dvalues, const float* dout,
                              const float* attention, const float* out, const float* queries, const float* keys,
                              const float* values, float w, int N, int K) {
    double dw_sum = 0;
    for (int n = 0; n < N; ++n) {
        const float* a = attention + size_t(n) * K;
        const float* k = keys + size_t(n) * K;
        const float* v = values + size_t(n) * K;
        for (int j = 0; j < K; ++j) {
            // d out / d score_j = a_j (v_j - out); score_j = -((q - k_j) w)^2 / 2
            const float dscore = dout[n] * a[j] * (v[j] - out[n]);
            const float diff = queries[n] - k[j];
            dw_sum += double(dscore) * (-diff * diff * w);
            if (dqueries) dqueries[n] += dscore * (-diff * w * w);
            if (dkeys) dkeys[size_t(n) * K + j] += dscore * (diff * w * w);
            if (dvalues) dvalues[size_t(n) * K + j] += dout[n] * a[j];
        }
    }
    if (dw) *dw += float(dw_sum);
}

}  // namespace attend
