#include "train/softmax_backward.h"

#include "kernels/simd.h"

#include <cmath>

namespace attend {

using simd::kWidth;
using simd::VecF;

void softmax_backward(float* dx, const float* dout, const float* out, int N, int C) {
    const int nv = simd::vector_part(C);
#pragma omp parallel for if ((long)N * C > 1 << 16)
    for (int n = 0; n < N; ++n) {
        const float* y = out + (size_t)n * C;
        const float* dy = dout + (size_t)n * C;
        float* d = dx + (size_t)n * C;
        VecF acc(0.0f);
        for (int c = 0; c < nv; c += kWidth) acc = simd::fma(simd::load(y + c), simd::load(dy + c), acc);
        if (nv < C) acc += simd::load_partial(y + nv, C - nv, 0.0f) * simd::load_partial(dy + nv, C - nv, 0.0f);
        const float dotf = simd::reduce_sum(acc);
        const VecF dot(dotf);
        for (int c = 0; c < nv; c += kWidth)
            simd::store(d + c, simd::fma(simd::load(y + c), simd::load(dy + c) - dot, simd::load(d + c)));
        for (int c = nv; c < C; ++c) d[c] += y[c] * (dy[c] - dotf);
    }
}

void log_softmax_backward(float* dx, const float* dout, const float* out, int N, int C) {
    const int nv = simd::vector_part(C);
#pragma omp parallel for if ((long)N * C > 1 << 16)
    for (int n = 0; n < N; ++n) {
        const float* y = out + (size_t)n * C;
        const float* dy = dout + (size_t)n * C;
        float* d = dx + (size_t)n * C;
        if (simd::max(y, C) == simd::kNegInf) continue;  // fully masked row
        const float totalf = simd::sum(dy, C);
        const VecF total(totalf);
        for (int c = 0; c < nv; c += kWidth)
            simd::store(d + c, simd::load(d + c) + simd::load(dy + c) - simd::exp(simd::load(y + c)) * total);
        for (int c = nv; c < C; ++c) d[c] += dy[c] - std::exp(y[c]) * totalf;
    }
}

}  // namespace attend
