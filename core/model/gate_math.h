// Vectorised element-wise helpers shared by the recurrent cells (xsimd through kernels/simd.h).
#pragma once
#include "kernels/simd.h"

namespace attend::gate_math {

inline simd::VecF sigmoid(simd::VecF x) {
    const simd::VecF one(1.0f);
    return one / (one + simd::exp(-x));
}

// Calls f(i, count) over [0, n) in whole vectors, then once for the tail (count < kWidth). f loads with
// load_n(p + i, count) and stores with store_n(p + i, v, count).
template <class F>
inline void for_each_vector(int n, F&& f) {
    const int nv = simd::vector_part(n);
    for (int i = 0; i < nv; i += simd::kWidth) f(i, simd::kWidth);
    if (nv < n) f(nv, n - nv);
}

inline simd::VecF load_n(const float* p, int count) {
    return count == simd::kWidth ? simd::load(p) : simd::load_partial(p, count, 0.0f);
}

inline void store_n(float* p, simd::VecF v, int count) {
    if (count == simd::kWidth)
        simd::store(p, v);
    else
        simd::store_partial(p, v, count);
}

}  // namespace attend::gate_math
