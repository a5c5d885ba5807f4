// Backward of decoder_block_forward (core/model/decoder_block.h). Gradients accumulate (+=).
#pragma once
#include "model/decoder_block.h"
#include "train/add_norm_backward.h"
#include "train/multi_head_attention_backward.h"
#include "train/position_wise_ffn_backward.h"

namespace attend {

// dx [B*T,C] += gradient of the block input; dmemory [B*S,C] += gradient of the encoder output through the
// encoder-decoder attention; values / grads: the parameters and their gradients (a ParameterStore's layout, on the
// ops' device). ops: CpuTrainOps (train/cpu_train_ops.h) or the CUDA ops.
template <class Ops>
void decoder_block_backward(Ops& ops, float* dx, float* dmemory, const float* dout, const DecoderBlockActivations& a,
                            const float* x, const float* memory, const float* values, float* grads,
                            const DecoderBlockParams& p, const AttnMask& self_mask, const AttnMask& cross_mask, int B,
                            int T, int S, const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const size_t n = size_t(N) * C;
    auto w = [&](size_t offset) { return values + offset; };
    auto g = [&](size_t offset) { return grads + offset; };
    const auto mark = ops.mark();
    float* dmid2 = ops.take_zero(n);
    float* dmid1 = ops.take_zero(n);
    float* dsub = ops.take_zero(n);
    float* din = ops.take_zero(n);
    auto clear = [&] {
        ops.zero(dsub, n);
        ops.zero(din, n);
    };

    add_norm_backward(ops, dmid2, dsub, g(p.norm3.weight), g(p.norm3.bias), dout, a.norm3, w(p.norm3.weight), N, C,
                      c.pre_ln);
    const float* in3 = c.pre_ln ? a.norm3.normed : a.mid2;
    position_wise_ffn_backward(ops, din, g(p.ffn.w1), g(p.ffn.b1), g(p.ffn.w2), g(p.ffn.b2), dsub, a.ffn, in3,
                               w(p.ffn.w1), w(p.ffn.w2), c.activation, N, C, c.ffn_dim);
    add_norm_input_backward(ops, dmid2, g(p.norm3.weight), g(p.norm3.bias), din, a.norm3, a.mid2, w(p.norm3.weight), N,
                            C, c.pre_ln);

    clear();
    add_norm_backward(ops, dmid1, dsub, g(p.norm2.weight), g(p.norm2.bias), dmid2, a.norm2, w(p.norm2.weight), N, C,
                      c.pre_ln);
    const float* in2 = c.pre_ln ? a.norm2.normed : a.mid1;
    multi_head_attention_backward(ops, din, dmemory, multi_head_attention_grads(grads, p.cross_attn), dsub,
                                  a.cross_attn, in2, memory, multi_head_attention_weights(values, p.cross_attn),
                                  cross_mask, B, T, S, C, c.heads);
    add_norm_input_backward(ops, dmid1, g(p.norm2.weight), g(p.norm2.bias), din, a.norm2, a.mid1, w(p.norm2.weight), N,
                            C, c.pre_ln);

    clear();
    add_norm_backward(ops, dx, dsub, g(p.norm1.weight), g(p.norm1.bias), dmid1, a.norm1, w(p.norm1.weight), N, C,
                      c.pre_ln);
    const float* in1 = c.pre_ln ? a.norm1.normed : x;
    multi_head_attention_backward(ops, din, din, multi_head_attention_grads(grads, p.self_attn), dsub, a.self_attn, in1,
                                  in1, multi_head_attention_weights(values, p.self_attn), self_mask, B, T, T, C,
                                  c.heads);
    add_norm_input_backward(ops, dx, g(p.norm1.weight), g(p.norm1.bias), din, a.norm1, x, w(p.norm1.weight), N, C,
                            c.pre_ln);
    ops.release(mark);
}

}  // namespace attend
