#include "train/embedding_backward.h"

#include "error.h"
#include "kernels/simd.h"

#include <string>

namespace attend {

using simd::kWidth;
using simd::VecF;

void embedding_backward(float* dtable, const float* dout, const int* ids, float scale, int padding_idx, int N, int C,
                        int V) {
    const int nv = simd::vector_part(C);
    const VecF vs(scale);
    // Serial: repeated ids add into the same row.
    for (int n = 0; n < N; ++n) {
        const int id = ids[n];
        if (id < 0 || id >= V)
            throw Error("embedding_backward: token id " + std::to_string(id) + " at position " + std::to_string(n) +
                        ", expected an id in [0, " + std::to_string(V) + ")");
        if (id == padding_idx) continue;
        float* row = dtable + (size_t)id * C;
        const float* g = dout + (size_t)n * C;
        for (int c = 0; c < nv; c += kWidth)
            simd::store(row + c, simd::fma(simd::load(g + c), vs, simd::load(row + c)));
        for (int c = nv; c < C; ++c) row[c] += scale * g[c];
    }
}

}  // namespace attend
