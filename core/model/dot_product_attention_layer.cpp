#include "model/dot_product_attention_layer.h"

#include <cmath>
#include <cstddef>

#include "kernels/masked_softmax.h"
#include "kernels/row_major.h"
#include "model/additive_attention_layer.h"

namespace attend {

void dot_product_attention_layer_forward(float* out, float* probs, const float* queries, const float* keys,
                                         const float* values, const AttnMask& mask, const Dropout& dropout, int B,
                                         int Tq, int Tk, int D, int Dv) {
    const float scale = 1.0f / std::sqrt(float(D));
    for (int b = 0; b < B; ++b) {
        Eigen::Map<RowMatrix> s(probs + size_t(b) * Tq * Tk, Tq, Tk);
        s.noalias() = scale * (Eigen::Map<const RowMatrix>(queries + size_t(b) * Tq * D, Tq, D) *
                               Eigen::Map<const RowMatrix>(keys + size_t(b) * Tk * D, Tk, D).transpose());
    }
    masked_softmax_forward(probs, probs, mask, B, 1, Tq, Tk);
    attention_weighted_sum(out, probs, values, dropout, B, Tq, Tk, Dv);
}

}  // namespace attend
