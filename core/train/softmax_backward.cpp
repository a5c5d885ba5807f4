#include "train/softmax_backward.h"

#include "kernels/simd.h"

#include <cmath>

namespace attend {

using simd::kWidth;
using simd::VecF;

namespace {

// Calls row(d, dy, y) with row n of dx, dout and out, for every row; rows are independent, so large inputs
// spread them over OpenMP threads.
template <class Row>
void for_each_row(float* dx, const float* dout, const float* out, int N, int C, Row row) {
#pragma omp parallel for if ((long)N * C > 1 << 16)
    for (int n = 0; n < N; ++n) row(dx + (size_t)n * C, dout + (size_t)n * C, out + (size_t)n * C);
}

}  // namespace

void softmax_backward(float* dx, const float* dout, const float* out, int N, int C) {
    const int nv = simd::vector_part(C);
    for_each_row(dx, dout, out, N, C, [=](float* d, const float* dy, const float* y) {
        VecF acc(0.0f);
        for (int c = 0; c < nv; c += kWidth) acc = simd::fma(simd::load(y + c), simd::load(dy + c), acc);
        if (nv < C) acc += simd::load_partial(y + nv, C - nv, 0.0f) * simd::load_partial(dy + nv, C - nv, 0.0f);
        const float dotf = simd::reduce_sum(acc);
        const VecF dot(dotf);
        for (int c = 0; c < nv; c += kWidth)
            simd::store(d + c, simd::fma(simd::load(y + c), simd::load(dy + c) - dot, simd::load(d + c)));
        for (int c = nv; c < C; ++c) d[c] += y[c] * (dy[c] - dotf);
    });
}

void log_softmax_backward(float* dx, const float* dout, const float* out, int N, int C) {
    const int nv = simd::vector_part(C);
    for_each_row(dx, dout, out, N, C, [=](float* d, const float* dy, const float* y) {
        if (simd::max(y, C) == simd::kNegInf) return;  // fully masked row
        const float totalf = simd::sum(dy, C);
        const VecF total(totalf);
        for (int c = 0; c < nv; c += kWidth)
            simd::store(d + c, simd::load(d + c) + simd::load(dy + c) - simd::exp(simd::load(y + c)) * total);
        for (int c = nv; c < C; ++c) d[c] += dy[c] - std::exp(y[c]) * totalf;
    });
}

}  // namespace attend
