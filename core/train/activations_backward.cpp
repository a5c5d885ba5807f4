#include "train/activations_backward.h"

#include "kernels/simd.h"

#include <cmath>

namespace attend {

using simd::kWidth;
using simd::VecF;

void relu_backward(float* dx, const float* dout, const float* x, int n) {
    // A plain loop: simd.h has no lane select (its one-lane fallback could not offer one), and GCC
    // vectorizes this compare-and-blend by itself.
    for (int i = 0; i < n; ++i) dx[i] += x[i] > 0.0f ? dout[i] : 0.0f;
}

void gelu_backward(float* dx, const float* dout, const float* x, int n) {
    // d/dx [x * Phi(x)] = Phi(x) + x * phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2, phi(x) = exp(-x^2/2) / sqrt(2 pi)
    const VecF half(0.5f), inv_sqrt2(0.70710678118654752f), inv_sqrt_2pi(0.39894228040143268f);
    auto grad = [&](VecF xv) {
        return half * (VecF(1.0f) + simd::erf(xv * inv_sqrt2)) + xv * inv_sqrt_2pi * simd::exp(-half * xv * xv);
    };
    const int nv = simd::vector_part(n);
    for (int i = 0; i < nv; i += kWidth)
        simd::store(dx + i, simd::fma(grad(simd::load(x + i)), simd::load(dout + i), simd::load(dx + i)));
    if (nv < n) {
        const int r = n - nv;
        VecF g = grad(simd::load_partial(x + nv, r, 0.0f));
        simd::store_partial(
            dx + nv, simd::fma(g, simd::load_partial(dout + nv, r, 0.0f), simd::load_partial(dx + nv, r, 0.0f)), r);
    }
}

void residual_backward(float* da, float* db, const float* dout, int n) {
    const int nv = simd::vector_part(n);
    for (int i = 0; i < nv; i += kWidth) {
        const VecF g = simd::load(dout + i);
        simd::store(da + i, simd::load(da + i) + g);
        simd::store(db + i, simd::load(db + i) + g);
    }
    for (int i = nv; i < n; ++i) {
        da[i] += dout[i];
        db[i] += dout[i];
    }
}

}  // namespace attend
