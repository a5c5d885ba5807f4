// The seeds' EncoderBlock (= nn.TransformerEncoderLayer): self-attention and a position-wise FFN, each
// wrapped in AddNorm (post-LN, or pre-LN when config.pre_ln).
#pragma once
#include "kernels/attn_mask.h"
#include "model/add_norm.h"
#include "model/multi_head_attention.h"
#include "model/position_wise_ffn.h"
#include "model/transformer_config.h"

namespace attend {

// Names: <prefix>self_attn.*, <prefix>linear1/2.*, <prefix>norm1/2.* (prefix like "encoder.layers.0.").
struct EncoderBlockParams {
    MultiHeadAttentionParams self_attn;
    PositionWiseFfnParams ffn;
    AddNormParams norm1, norm2;
};
EncoderBlockParams declare_encoder_block(ParameterStore& store, const std::string& prefix, const TransformerConfig& c);

struct EncoderBlockActivations {
    MultiHeadAttentionActivations self_attn;
    PositionWiseFfnActivations ffn;
    AddNormActivations norm1, norm2;
    float* attn_out = nullptr;  // [B*T,C] self-attention output (dropout applied in place)
    float* mid = nullptr;       // [B*T,C] output of the first residual unit
    float* ffn_out = nullptr;   // [B*T,C]
    float* out = nullptr;       // [B*T,C] block output
};
template <class Alloc>
EncoderBlockActivations plan_encoder_block(Alloc& arena, int B, int T, const TransformerConfig& c, bool keep_weights) {
    const int N = B * T, C = c.model_dim;
    EncoderBlockActivations a;
    a.self_attn = plan_multi_head_attention(arena, B, T, T, C, c.heads, keep_weights);
    a.ffn = plan_position_wise_ffn(arena, N, c.ffn_dim);
    a.norm1 = plan_add_norm(arena, N, C, c.pre_ln);
    a.norm2 = plan_add_norm(arena, N, C, c.pre_ln);
    a.attn_out = arena.take(size_t(N) * C);
    a.mid = arena.take(size_t(N) * C);
    a.ffn_out = arena.take(size_t(N) * C);
    a.out = arena.take(size_t(N) * C);
    return a;
}

// x [B,T,C]; result in acts.out. values: the parameters (a ParameterStore's layout, on the ops' device). mask: the
// source mask (valid_lens / key padding). dropout may be null (none).
template <class Ops>
void encoder_block_forward(Ops& ops, EncoderBlockActivations& a, const float* x, const float* values,
                           const EncoderBlockParams& p, const AttnMask& mask, DropoutStream* dropout, int B, int T,
                           const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const float eps = c.layernorm_eps;
    const float *n1w = values + p.norm1.weight, *n1b = values + p.norm1.bias;
    const float *n2w = values + p.norm2.weight, *n2b = values + p.norm2.bias;

    const float* in = add_norm_input(ops, a.norm1, x, n1w, n1b, eps, N, C, c.pre_ln);
    multi_head_attention_forward(ops, a.attn_out, a.self_attn, in, in,
                                 multi_head_attention_weights(values, p.self_attn), mask, B, T, T, C, c.heads,
                                 dropout ? dropout->next(size_t(B) * c.heads * T * T, c.attention_dropout_rate())
                                         : Dropout{});
    add_norm_forward(ops, a.mid, a.norm1, x, a.attn_out, n1w, n1b, dropout ? dropout->next(size_t(N) * C) : Dropout{},
                     eps, N, C, c.pre_ln);

    in = add_norm_input(ops, a.norm2, a.mid, n2w, n2b, eps, N, C, c.pre_ln);
    position_wise_ffn_forward(ops, a.ffn_out, a.ffn, in, values + p.ffn.w1, values + p.ffn.b1, values + p.ffn.w2,
                              values + p.ffn.b2, c.activation, N, C, c.ffn_dim);
    add_norm_forward(ops, a.out, a.norm2, a.mid, a.ffn_out, n2w, n2b,
                     dropout ? dropout->next(size_t(N) * C) : Dropout{}, eps, N, C, c.pre_ln);
}

}  // namespace attend
