#include "model/additive_attention_layer.h"

#include <cstddef>
#include <vector>

#include "kernels/additive_attention.h"
#include "kernels/masked_softmax.h"
#include "kernels/row_major.h"
#include "model/linear.h"

namespace attend {

void attention_weighted_sum(float* out, const float* probs, const float* values, const Dropout& dropout, int B, int Tq,
                            int Tk, int Dv) {
    std::vector<float> dropped;
    const float* weights = probs;
    if (dropout.active()) {
        dropped.resize(size_t(B) * Tq * Tk);
        dropout_forward(dropped.data(), probs, dropout, int64_t(dropped.size()));
        weights = dropped.data();
    }
    for (int b = 0; b < B; ++b) {
        Eigen::Map<RowMatrix> o(out + size_t(b) * Tq * Dv, Tq, Dv);
        o.noalias() = Eigen::Map<const RowMatrix>(weights + size_t(b) * Tq * Tk, Tq, Tk) *
                      Eigen::Map<const RowMatrix>(values + size_t(b) * Tk * Dv, Tk, Dv);
    }
}

void additive_attention_layer_forward(float* out, float* probs, float* q_proj, float* k_proj, const float* queries,
                                      const float* keys, const float* values, const float* W_q, const float* W_k,
                                      const float* w_v, const AttnMask& mask, const Dropout& dropout, int B, int Tq,
                                      int Tk, int Dq, int Dk, int Hd, int Dv) {
    linear_forward(q_proj, queries, W_q, nullptr, B * Tq, Dq, Hd);
    linear_forward(k_proj, keys, W_k, nullptr, B * Tk, Dk, Hd);
    additive_attention_scores(probs, q_proj, k_proj, w_v, B, Tq, Tk, Hd);
    masked_softmax_forward(probs, probs, mask, B, 1, Tq, Tk);
    attention_weighted_sum(out, probs, values, dropout, B, Tq, Tk, Dv);
}

}  // namespace attend
