#include "kernels/activations.h"

#include "kernels/simd.h"

namespace attend {

using simd::VecF;
using simd::kWidth;

namespace {

// Applies f to whole vectors, then to the padded tail.
template <class F>
void map_unary(float* out, const float* x, int n, F f) {
    const int nv = simd::vector_part(n);
#pragma omp parallel for schedule(static) if (n >= (1 << 18))
    for (int i = 0; i < nv; i += kWidth) simd::store(out + i, f(simd::load(x + i)));
    if (nv < n) simd::store_partial(out + nv, f(simd::load_partial(x + nv, n - nv, 0.0f)), n - nv);
}

}  // namespace

void relu_forward(float* out, const float* x, int n) {
    const VecF zero(0.0f);
    map_unary(out, x, n, [zero](VecF v) { return simd::max(v, zero); });
}

void gelu_forward(float* out, const float* x, int n) {
    const VecF half(0.5f), one(1.0f), inv_sqrt2(0.70710678118654752f);
    map_unary(out, x, n, [=](VecF v) { return half * v * (one + simd::erf(v * inv_sqrt2)); });
}

void residual_forward(float* out, const float* a, const float* b, int n) {
    const int nv = simd::vector_part(n);
#pragma omp parallel for schedule(static) if (n >= (1 << 18))
    for (int i = 0; i < nv; i += kWidth) simd::store(out + i, simd::load(a + i) + simd::load(b + i));
    if (nv < n)
        simd::store_partial(out + nv, simd::load_partial(a + nv, n - nv, 0.0f) + simd::load_partial(b + nv, n - nv, 0.0f),
                            n - nv);
}

}  // namespace attend
