#include "kernels/embedding.h"

#include "error.h"
#include "kernels/simd.h"

#include <cstddef>
#include <string>

namespace attend {

using simd::VecF;
using simd::kWidth;

void embedding_forward(float* out, const int* ids, const float* table, float scale, int N, int C, int V) {
    for (int n = 0; n < N; ++n)
        if (ids[n] < 0 || ids[n] >= V)
            throw Error("embedding: token id " + std::to_string(ids[n]) + " at position " + std::to_string(n) +
                        " is outside the vocabulary [0, " + std::to_string(V) + ")");
    const int nv = simd::vector_part(C);
    const VecF vs(scale);
    for (int n = 0; n < N; ++n) {
        const float* row = table + (size_t)ids[n] * C;
        float* y = out + (size_t)n * C;
        for (int c = 0; c < nv; c += kWidth) simd::store(y + c, simd::load(row + c) * vs);
        if (nv < C) simd::store_partial(y + nv, simd::load_partial(row + nv, C - nv, 0.0f) * vs, C - nv);
    }
}

}  // namespace attend
