#include "kernels/positional_encoding.h"

#include "kernels/activations.h"

#include <cmath>
#include <cstddef>
#include <vector>

namespace attend {

namespace {

// Rows t0 .. t0+T-1 of the table. The angle is computed in float like d2l's float32 tensors.
void positional_encoding_rows(float* P, int t0, int T, int C) {
    for (int c = 0; c < C; c += 2) {
        const float inv_freq = 1.0f / std::pow(10000.0f, (float)c / (float)C);
        for (int t = 0; t < T; ++t) {
            const float angle = (float)(t0 + t) * inv_freq;
            P[(size_t)t * C + c] = std::sin(angle);
            if (c + 1 < C) P[(size_t)t * C + c + 1] = std::cos(angle);
        }
    }
}

}  // namespace

void positional_encoding_table(float* P, int T, int C) { positional_encoding_rows(P, 0, T, C); }

void positional_encoding_add(float* x, int B, int T, int C, int t0) {
    std::vector<float> rows((size_t)T * C);
    positional_encoding_rows(rows.data(), t0, T, C);
    for (int b = 0; b < B; ++b) {
        float* xb = x + (size_t)b * T * C;
        residual_forward(xb, xb, rows.data(), T * C);
    }
}

}  // namespace attend
