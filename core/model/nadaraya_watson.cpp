#include "model/nadaraya_watson.h"

#include <cstddef>

#include "kernels/softmax.h"

namespace attend {

void nadaraya_watson_forward(float* out, float* attention, const float* queries, const float* keys,
                             const float* values, float w, int N, int K) {
    for (int n = 0; n < N; ++n) {
        float* a = attention + size_t(n) * K;
        const float* k = keys + size_t(n) * K;
        const float* v = values + size_t(n) * K;
        for (int j = 0; j < K; ++j) {
            const float d = (queries[n] - k[j]) * w;
            a[j] = -0.5f * d * d;
        }
        softmax_row(a, a, K);
        float sum = 0.0f;
        for (int j = 0; j < K; ++j) sum += a[j] * v[j];
        out[n] = sum;
    }
}

}  // namespace attend
