#include "train/multi_head_attention_backward.h"

#include "train/attention_backward.h"
#include "train/linear_backward.h"

#include <algorithm>
#include <vector>

namespace attend {

void multi_head_attention_backward(float* dx_query, float* dx_key_value, const MultiHeadAttentionGrads& g,
                                   const float* dout, const MultiHeadAttentionActivations& a, const float* x_query,
                                   const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                   int B, int Tq, int Tk, int C, int H) {
    const int D = C / H;
    const size_t nq = size_t(B) * Tq * C, nk = size_t(B) * Tk * C;
    // Gradient scratch of this call only: the arena holds what the forward saved, not these.
    std::vector<float> dconcat(nq, 0.0f), dheads(nq), dq(nq, 0.0f), dk(nk, 0.0f), dv(nk, 0.0f),
        dflat(3 * std::max(nq, nk));

    linear_backward(dconcat.data(), g.out_weight, g.out_bias, dout, a.concat, w.out_weight, B * Tq, C, C);
    split_heads(dheads.data(), dconcat.data(), B, Tq, H, D);
    attention_backward(dq.data(), dk.data(), dv.data(), dheads.data(), a.q, a.k, a.v, a.heads, a.logsumexp, mask, B, H,
                       Tq, Tk, D, 0.0f, &a.attention_dropout);
    // The same fused q|k|v (or k|v) products as the forward when the weights and their gradients are laid out
    // back to back; dx_query == dx_key_value for self-attention, which += handles.
    const MultiHeadAttentionWeights gw{g.q_weight, g.q_bias, g.k_weight,   g.k_bias,
                                       g.v_weight, g.v_bias, g.out_weight, g.out_bias};
    const bool self_attention = x_query == x_key_value && Tq == Tk && dx_query == dx_key_value;
    if (self_attention && multi_head_attention_fusable(w, C, true) && multi_head_attention_fusable(gw, C, true)) {
        merge_heads(dflat.data(), dq.data(), B, Tq, H, D, 3 * C);
        merge_heads(dflat.data() + C, dk.data(), B, Tk, H, D, 3 * C);
        merge_heads(dflat.data() + 2 * C, dv.data(), B, Tk, H, D, 3 * C);
        linear_backward(dx_query, g.q_weight, g.q_bias, dflat.data(), x_query, w.q_weight, B * Tq, C, 3 * C);
        return;
    }
    merge_heads(dflat.data(), dq.data(), B, Tq, H, D);
    linear_backward(dx_query, g.q_weight, g.q_bias, dflat.data(), x_query, w.q_weight, B * Tq, C, C);
    if (multi_head_attention_fusable(w, C, false) && multi_head_attention_fusable(gw, C, false)) {
        merge_heads(dflat.data(), dk.data(), B, Tk, H, D, 2 * C);
        merge_heads(dflat.data() + C, dv.data(), B, Tk, H, D, 2 * C);
        linear_backward(dx_key_value, g.k_weight, g.k_bias, dflat.data(), x_key_value, w.k_weight, B * Tk, C, 2 * C);
        return;
    }
    merge_heads(dflat.data(), dk.data(), B, Tk, H, D);
    linear_backward(dx_key_value, g.k_weight, g.k_bias, dflat.data(), x_key_value, w.k_weight, B * Tk, C, C);
    merge_heads(dflat.data(), dv.data(), B, Tk, H, D);
    linear_backward(dx_key_value, g.v_weight, g.v_bias, dflat.data(), x_key_value, w.v_weight, B * Tk, C, C);
}

}  // namespace attend
