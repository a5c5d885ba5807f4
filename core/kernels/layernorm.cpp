#include "kernels/layernorm.h"

#include "kernels/simd.h"

#include <cmath>
#include <cstddef>

namespace attend {

using simd::VecF;
using simd::kWidth;

void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* weight,
                       const float* bias, float eps, int N, int C) {
    const int nv = simd::vector_part(C);
    const int tail = C - nv;
#pragma omp parallel for schedule(static) if ((long long)N * C >= (1 << 16))
    for (int n = 0; n < N; ++n) {
        const float* xr = x + (size_t)n * C;
        float* yr = out + (size_t)n * C;
        const float m = simd::sum(xr, C) / C;
        // Two passes: the variance of (x - mean) stays accurate when |mean| >> std.
        const VecF vm(m);
        VecF var0(0.0f), var1(0.0f);  // two accumulators: see simd::sum
        int c = 0;
        for (; c + 2 * kWidth <= C; c += 2 * kWidth) {
            VecF d0 = simd::load(xr + c) - vm, d1 = simd::load(xr + c + kWidth) - vm;
            var0 = simd::fma(d0, d0, var0);
            var1 = simd::fma(d1, d1, var1);
        }
        for (; c + kWidth <= C; c += kWidth) {
            VecF d = simd::load(xr + c) - vm;
            var0 = simd::fma(d, d, var0);
        }
        if (c < C) {
            VecF d = simd::load_partial(xr + c, C - c, m) - vm;
            var1 = simd::fma(d, d, var1);
        }
        const float s = 1.0f / std::sqrt(simd::reduce_sum(var0 + var1) / C + eps);
        const VecF vs(s);
        for (int c = 0; c < nv; c += kWidth) {
            VecF y = (simd::load(xr + c) - vm) * vs;
            if (weight) y = y * simd::load(weight + c);
            if (bias) y = y + simd::load(bias + c);
            simd::store(yr + c, y);
        }
        if (tail) {
            VecF y = (simd::load_partial(xr + nv, tail, 0.0f) - vm) * vs;
            if (weight) y = y * simd::load_partial(weight + nv, tail, 0.0f);
            if (bias) y = y + simd::load_partial(bias + nv, tail, 0.0f);
            simd::store_partial(yr + nv, y, tail);
        }
        if (mean) mean[n] = m;
        if (rstd) rstd[n] = s;
    }
}

}  // namespace attend
