#include "model/gate_math.h"  // simd.h first: see its note on GCC and Eigen
#include "train/attention_layers_backward.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/row_major.h"
#include "train/linear_backward.h"
#include "train/softmax_backward.h"

namespace attend {

void attention_weighted_sum_backward(float* dscores, float* dvalues, const float* dout, const float* probs,
                                     const float* values, const Dropout& dropout, int B, int Tq, int Tk, int Dv) {
    const size_t n = size_t(B) * Tq * Tk;
    std::vector<float> dropped;
    const float* weights = probs;
    if (dropout.active()) {
        dropped.resize(n);
        dropout_forward(dropped.data(), probs, dropout, int64_t(n));
        weights = dropped.data();
    }
    std::vector<float> dweights(n);  // gradient of the dropped weights
    for (int b = 0; b < B; ++b) {
        ConstMatrixMap go(dout + size_t(b) * Tq * Dv, Tq, Dv);
        ConstMatrixMap v(values + size_t(b) * Tk * Dv, Tk, Dv);
        if (dvalues)
            MatrixMap(dvalues + size_t(b) * Tk * Dv, Tk, Dv).noalias() +=
                ConstMatrixMap(weights + size_t(b) * Tq * Tk, Tq, Tk).transpose() * go;
        MatrixMap(dweights.data() + size_t(b) * Tq * Tk, Tq, Tk).noalias() = go * v.transpose();
    }
    // Through the mask: d(probs) = mask * scale * d(dropped), which is the forward's own product.
    if (dropout.active()) dropout_forward(dweights.data(), dweights.data(), dropout, int64_t(n));
    softmax_backward(dscores, dweights.data(), probs, B * Tq, Tk);
}

void additive_attention_scores_backward(float* dq_proj, float* dk_proj, float* dw_v, const float* dscores,
                                        const float* q_proj, const float* k_proj, const float* w_v, int B, int Tq,
                                        int Tk, int Hd) {
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < Tq; ++i) {
            const float* q = q_proj + (size_t(b) * Tq + i) * Hd;
            float* dqi = dq_proj + (size_t(b) * Tq + i) * Hd;
            for (int j = 0; j < Tk; ++j) {
                const float ds = dscores[(size_t(b) * Tq + i) * Tk + j];
                if (ds == 0.0f) continue;  // masked keys
                const float* k = k_proj + (size_t(b) * Tk + j) * Hd;
                float* dkj = dk_proj + (size_t(b) * Tk + j) * Hd;
                // The forward's tanh recomputed in vectors (the kernel's own simd::tanh): one scalar tanh per
                // element made it a tenth of the GRU + Bahdanau model's training step.
                const simd::VecF dsv(ds), one(1.0f);
                gate_math::for_each_vector(Hd, [&](int h, int n) {
                    using gate_math::load_n;
                    using gate_math::store_n;
                    const simd::VecF f = simd::tanh(load_n(q + h, n) + load_n(k + h, n));
                    store_n(dw_v + h, load_n(dw_v + h, n) + dsv * f, n);
                    const simd::VecF dpre = dsv * load_n(w_v + h, n) * (one - f * f);
                    store_n(dqi + h, load_n(dqi + h, n) + dpre, n);
                    store_n(dkj + h, load_n(dkj + h, n) + dpre, n);
                });
            }
        }
}

void additive_attention_layer_backward(float* dqueries, float* dkeys, float* dvalues, float* dW_q, float* dW_k,
                                       float* dw_v, const float* dout, const float* probs, const float* q_proj,
                                       const float* k_proj, const float* queries, const float* keys,
                                       const float* values, const float* W_q, const float* W_k, const float* w_v,
                                       const Dropout& dropout, int B, int Tq, int Tk, int Dq, int Dk, int Hd, int Dv) {
    std::vector<float> dscores(size_t(B) * Tq * Tk, 0.0f);
    attention_weighted_sum_backward(dscores.data(), dvalues, dout, probs, values, dropout, B, Tq, Tk, Dv);
    std::vector<float> dq(size_t(B) * Tq * Hd, 0.0f), dk(size_t(B) * Tk * Hd, 0.0f);
    additive_attention_scores_backward(dq.data(), dk.data(), dw_v, dscores.data(), q_proj, k_proj, w_v, B, Tq, Tk, Hd);
    linear_backward(dqueries, dW_q, nullptr, dq.data(), queries, W_q, B * Tq, Dq, Hd);
    linear_backward(dkeys, dW_k, nullptr, dk.data(), keys, W_k, B * Tk, Dk, Hd);
}

void dot_product_attention_layer_backward(float* dqueries, float* dkeys, float* dvalues, const float* dout,
                                          const float* probs, const float* queries, const float* keys,
                                          const float* values, const Dropout& dropout, int B, int Tq, int Tk, int D,
                                          int Dv) {
    std::vector<float> dscores(size_t(B) * Tq * Tk, 0.0f);
    attention_weighted_sum_backward(dscores.data(), dvalues, dout, probs, values, dropout, B, Tq, Tk, Dv);
    const float scale = 1.0f / std::sqrt(float(D));
    for (int b = 0; b < B; ++b) {
        ConstMatrixMap ds(dscores.data() + size_t(b) * Tq * Tk, Tq, Tk);
        if (dqueries)
            MatrixMap(dqueries + size_t(b) * Tq * D, Tq, D).noalias() +=
                scale * (ds * ConstMatrixMap(keys + size_t(b) * Tk * D, Tk, D));
        if (dkeys)
            MatrixMap(dkeys + size_t(b) * Tk * D, Tk, D).noalias() +=
                scale * (ds.transpose() * ConstMatrixMap(queries + size_t(b) * Tq * D, Tq, D));
    }
}

}  // namespace attend
