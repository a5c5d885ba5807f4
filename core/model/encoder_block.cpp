#include "model/encoder_block.h"

namespace attend {

EncoderBlockParams declare_encoder_block(ParameterStore& store, const std::string& prefix, const TransformerConfig& c) {
    EncoderBlockParams p;
    p.self_attn = declare_multi_head_attention(store, prefix + "self_attn", c.model_dim, c.bias);
    p.ffn = declare_position_wise_ffn(store, prefix, c.model_dim, c.ffn_dim);
    p.norm1 = declare_add_norm(store, prefix + "norm1", c.model_dim);
    p.norm2 = declare_add_norm(store, prefix + "norm2", c.model_dim);
    return p;
}

EncoderBlockActivations plan_encoder_block(Arena& arena, int B, int T, const TransformerConfig& c, bool keep_weights) {
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

void encoder_block_forward(EncoderBlockActivations& a, const float* x, const ParameterStore& s,
                           const EncoderBlockParams& p, const AttnMask& mask, DropoutStream* dropout, int B, int T,
                           const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const float eps = c.layernorm_eps;
    const float *n1w = s.value_at(p.norm1.weight), *n1b = s.value_at(p.norm1.bias);
    const float *n2w = s.value_at(p.norm2.weight), *n2b = s.value_at(p.norm2.bias);

    const float* in = add_norm_input(a.norm1, x, n1w, n1b, eps, N, C, c.pre_ln);
    multi_head_attention_forward(a.attn_out, a.self_attn, in, in, multi_head_attention_weights(s, p.self_attn), mask, B,
                                 T, T, C, c.heads, dropout ? dropout->next(size_t(B) * c.heads * T * T) : Dropout{});
    add_norm_forward(a.mid, a.norm1, x, a.attn_out, n1w, n1b, dropout ? dropout->next(size_t(N) * C) : Dropout{}, eps,
                     N, C, c.pre_ln);

    in = add_norm_input(a.norm2, a.mid, n2w, n2b, eps, N, C, c.pre_ln);
    position_wise_ffn_forward(a.ffn_out, a.ffn, in, s.value_at(p.ffn.w1), s.value_at(p.ffn.b1), s.value_at(p.ffn.w2),
                              s.value_at(p.ffn.b2), c.activation, N, C, c.ffn_dim);
    add_norm_forward(a.out, a.norm2, a.mid, a.ffn_out, n2w, n2b, dropout ? dropout->next(size_t(N) * C) : Dropout{},
                     eps, N, C, c.pre_ln);
}

}  // namespace attend
