// Backward of multi_head_attention_forward (core/model/multi_head_attention.h). Gradients accumulate (+=):
// for self-attention pass the same pointer as dx_query and dx_key_value.
#pragma once
#include "model/multi_head_attention.h"

#include <algorithm>

namespace attend {

// dx_query [B,Tq,C]; dx_key_value [B,Tk,C] (either may be nullptr); dout [B,Tq,C]; acts as saved by the forward
// with the same inputs, weights and mask. ops: CpuTrainOps (train/cpu_train_ops.h) or the CUDA ops.
template <class Ops>
void multi_head_attention_backward(Ops& ops, float* dx_query, float* dx_key_value, const MultiHeadAttentionGrads& g,
                                   const float* dout, const MultiHeadAttentionActivations& a, const float* x_query,
                                   const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                   int B, int Tq, int Tk, int C, int H) {
    const int D = C / H;
    const size_t nq = size_t(B) * Tq * C, nk = size_t(B) * Tk * C;
    const auto mark = ops.mark();
    float* dconcat = ops.take_zero(nq);
    float* dheads = ops.take(nq);
    float* dq = ops.take_zero(nq);
    float* dk = ops.take_zero(nk);
    float* dv = ops.take_zero(nk);
    float* dflat = ops.take(3 * std::max(nq, nk));

    ops.linear_backward(dconcat, g.out_weight, g.out_bias, dout, a.concat, w.out_weight, B * Tq, C, C);
    ops.split_heads(dheads, dconcat, B, Tq, H, D);
    ops.attention_backward(dq, dk, dv, dheads, a.q, a.k, a.v, a.heads, a.logsumexp, mask, B, H, Tq, Tk, D, 0.0f,
                           &a.attention_dropout);
    // The same fused q|k|v (or k|v) products as the forward when the weights and their gradients are laid out
    // back to back; dx_query == dx_key_value for self-attention, which += handles.
    const MultiHeadAttentionWeights gw{g.q_weight, g.q_bias, g.k_weight,   g.k_bias,
                                       g.v_weight, g.v_bias, g.out_weight, g.out_bias};
    const bool self_attention = x_query == x_key_value && Tq == Tk && dx_query == dx_key_value;
    if (self_attention && multi_head_attention_fusable(w, C, true) && multi_head_attention_fusable(gw, C, true)) {
        ops.merge_heads(dflat, dq, B, Tq, H, D, 3 * C);
        ops.merge_heads(dflat + C, dk, B, Tk, H, D, 3 * C);
        ops.merge_heads(dflat + 2 * C, dv, B, Tk, H, D, 3 * C);
        ops.linear_backward(dx_query, g.q_weight, g.q_bias, dflat, x_query, w.q_weight, B * Tq, C, 3 * C);
    } else {
        ops.merge_heads(dflat, dq, B, Tq, H, D);
        ops.linear_backward(dx_query, g.q_weight, g.q_bias, dflat, x_query, w.q_weight, B * Tq, C, C);
        if (multi_head_attention_fusable(w, C, false) && multi_head_attention_fusable(gw, C, false)) {
            ops.merge_heads(dflat, dk, B, Tk, H, D, 2 * C);
            ops.merge_heads(dflat + C, dv, B, Tk, H, D, 2 * C);
            ops.linear_backward(dx_key_value, g.k_weight, g.k_bias, dflat, x_key_value, w.k_weight, B * Tk, C, 2 * C);
        } else {
            ops.merge_heads(dflat, dk, B, Tk, H, D);
            ops.linear_backward(dx_key_value, g.k_weight, g.k_bias, dflat, x_key_value, w.k_weight, B * Tk, C, C);
            ops.merge_heads(dflat, dv, B, Tk, H, D);
            ops.linear_backward(dx_key_value, g.v_weight, g.v_bias, dflat, x_key_value, w.v_weight, B * Tk, C, C);
        }
    }
    ops.release(mark);
}

// The same on the CPU, with scratch of its own.
void multi_head_attention_backward(float* dx_query, float* dx_key_value, const MultiHeadAttentionGrads& g,
                                   const float* dout, const MultiHeadAttentionActivations& acts, const float* x_query,
                                   const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                   int B, int Tq, int Tk, int C, int H);

}  // namespace attend
