#include "kernels/attention_step.h"

#include "kernels/simd.h"

#include <cmath>

namespace attend {

using simd::VecF;
using simd::kWidth;

void attention_step_forward(float* out, float* probs, float* scores, const float* q, const float* k, const float* v,
                            int Tk, int D, float scale) {
    if (scale <= 0.0f) scale = 1.0f / std::sqrt((float)D);
    const int nv = simd::vector_part(D), tail = D - nv;
    if (Tk <= 0) {
        for (int d = 0; d < D; ++d) out[d] = 0.0f;
        return;
    }
    // Scores, with q scaled first (as the tiled kernel does).
    const VecF vs(scale);
    float m = simd::kNegInf;
    for (int j = 0; j < Tk; ++j) {
        const float* kj = k + (long)j * D;
        VecF a(0.0f);
        for (int d = 0; d < nv; d += kWidth) a = simd::fma(simd::load(q + d) * vs, simd::load(kj + d), a);
        if (tail) a = simd::fma(simd::load_partial(q + nv, tail, 0.0f) * vs, simd::load_partial(kj + nv, tail, 0.0f), a);
        const float s = simd::reduce_sum(a);
        scores[j] = s;
        m = s > m ? s : m;
    }
    // Weights (unnormalized) and the weighted sum of the values, divided by their sum at the end.
    const float inv_l = 1.0f / simd::exp_shifted(scores, scores, Tk, m);
    int d = 0;
    for (; d < nv; d += kWidth) {
        VecF acc(0.0f);
        for (int j = 0; j < Tk; ++j) acc = simd::fma(VecF(scores[j]), simd::load(v + (long)j * D + d), acc);
        simd::store(out + d, acc * VecF(inv_l));
    }
    for (; d < D; ++d) {
        float acc = 0.0f;
        for (int j = 0; j < Tk; ++j) acc += scores[j] * v[(long)j * D + d];
        out[d] = acc * inv_l;
    }
    if (probs)
        for (int j = 0; j < Tk; ++j) probs[j] = scores[j] * inv_l;
}

}  // namespace attend
