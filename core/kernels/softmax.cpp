#include "kernels/softmax.h"

#include "kernels/simd.h"

#include <cmath>
#include <cstddef>

namespace attend {

using simd::VecF;
using simd::kWidth;

float softmax_row(float* out, const float* x, int C) {
    const float m = simd::max(x, C);
    if (m == simd::kNegInf) {
        for (int c = 0; c < C; ++c) out[c] = 0.0f;
        return simd::kNegInf;
    }
    const float total = simd::exp_shifted(out, x, C, m);
    simd::scale(out, C, 1.0f / total);
    return m + std::log(total);
}

void softmax_forward(float* out, const float* x, int N, int C) {
#pragma omp parallel for schedule(static) if ((long long)N * C >= (1 << 16))
    for (int n = 0; n < N; ++n) softmax_row(out + (size_t)n * C, x + (size_t)n * C, C);
}

namespace {

// log(sum(exp(x - m))) over one row x [C] whose maximum m is finite.
float log_sum_exp_shifted(const float* x, int C, float m) {
    const int nv = simd::vector_part(C);
    const VecF vm(m);
    VecF vsum(0.0f);
    for (int c = 0; c < nv; c += kWidth) vsum += simd::exp(simd::load(x + c) - vm);
    if (nv < C) vsum += simd::exp(simd::load_partial(x + nv, C - nv, simd::kNegInf) - vm);
    return std::log(simd::reduce_sum(vsum));
}

}  // namespace

void log_softmax_forward(float* out, const float* x, int N, int C) {
    const int nv = simd::vector_part(C);
#pragma omp parallel for schedule(static) if ((long long)N * C >= (1 << 16))
    for (int n = 0; n < N; ++n) {
        const float* xr = x + (size_t)n * C;
        float* yr = out + (size_t)n * C;
        const float m = simd::max(xr, C);
        if (m == simd::kNegInf) {
            for (int c = 0; c < C; ++c) yr[c] = simd::kNegInf;
            continue;
        }
        const VecF vm(m);
        // (x - m) - log(sum), not x - (m + log(sum)): for |m| ~ 1e4 the float sum m + log(sum) would round.
        const VecF log_sum(log_sum_exp_shifted(xr, C, m));
        for (int c = 0; c < nv; c += kWidth) simd::store(yr + c, (simd::load(xr + c) - vm) - log_sum);
        if (nv < C)
            simd::store_partial(yr + nv, (simd::load_partial(xr + nv, C - nv, 0.0f) - vm) - log_sum, C - nv);
    }
}

float log_softmax_at(const float* x, int C, int index) {
    const float m = simd::max(x, C);
    if (m == simd::kNegInf) return simd::kNegInf;
    return (x[index] - m) - log_sum_exp_shifted(x, C, m);
}

}  // namespace attend
