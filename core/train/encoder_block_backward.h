// Backward of encoder_block_forward (core/model/encoder_block.h). Gradients accumulate (+=).
#pragma once
#include "model/encoder_block.h"
#include "train/add_norm_backward.h"
#include "train/multi_head_attention_backward.h"
#include "train/position_wise_ffn_backward.h"

namespace attend {

// dx [B*T,C] += gradient of the block input x; values / grads: the parameters and their gradients (a
// ParameterStore's layout, on the ops' device). ops: CpuTrainOps (train/cpu_train_ops.h) or the CUDA ops.
template <class Ops>
void encoder_block_backward(Ops& ops, float* dx, const float* dout, const EncoderBlockActivations& a, const float* x,
                            const float* values, float* grads, const EncoderBlockParams& p, const AttnMask& mask,
                            int B, int T, const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const size_t n = size_t(N) * C;
    auto w = [&](size_t offset) { return values + offset; };
    auto g = [&](size_t offset) { return grads + offset; };
    const auto mark = ops.mark();
    float* dmid = ops.take_zero(n);
    float* dsub = ops.take_zero(n);
    float* din = ops.take_zero(n);

    add_norm_backward(ops, dmid, dsub, g(p.norm2.weight), g(p.norm2.bias), dout, a.norm2, w(p.norm2.weight), N, C,
                      c.pre_ln);
    const float* in2 = c.pre_ln ? a.norm2.normed : a.mid;
    position_wise_ffn_backward(ops, din, g(p.ffn.w1), g(p.ffn.b1), g(p.ffn.w2), g(p.ffn.b2), dsub, a.ffn, in2,
                               w(p.ffn.w1), w(p.ffn.w2), c.activation, N, C, c.ffn_dim);
    add_norm_input_backward(ops, dmid, g(p.norm2.weight), g(p.norm2.bias), din, a.norm2, a.mid, w(p.norm2.weight), N,
                            C, c.pre_ln);

    ops.zero(dsub, n);
    ops.zero(din, n);
    add_norm_backward(ops, dx, dsub, g(p.norm1.weight), g(p.norm1.bias), dmid, a.norm1, w(p.norm1.weight), N, C,
                      c.pre_ln);
    const float* in1 = c.pre_ln ? a.norm1.normed : x;
    multi_head_attention_backward(ops, din, din, multi_head_attention_grads(grads, p.self_attn), dsub, a.self_attn, in1,
                                  in1, multi_head_attention_weights(values, p.self_attn), mask, B, T, T, C, c.heads);
    add_norm_input_backward(ops, dx, g(p.norm1.weight), g(p.norm1.bias), din, a.norm1, x, w(p.norm1.weight), N, C,
                            c.pre_ln);
    ops.release(mark);
}

}  // namespace attend
