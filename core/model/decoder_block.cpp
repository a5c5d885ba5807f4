#include "model/decoder_block.h"

#include "error.h"
#include "kernels/activations.h"
#include "kernels/attention.h"
#include "kernels/layernorm.h"
#include "model/linear.h"

#include <algorithm>
#include <string>

namespace attend {

DecoderBlockParams declare_decoder_block(ParameterStore& store, const std::string& prefix, const TransformerConfig& c) {
    DecoderBlockParams p;
    p.self_attn = declare_multi_head_attention(store, prefix + "self_attn", c.model_dim, c.bias);
    p.cross_attn = declare_multi_head_attention(store, prefix + "cross_attn", c.model_dim, c.bias);
    p.ffn = declare_position_wise_ffn(store, prefix, c.model_dim, c.ffn_dim);
    p.norm1 = declare_add_norm(store, prefix + "norm1", c.model_dim);
    p.norm2 = declare_add_norm(store, prefix + "norm2", c.model_dim);
    p.norm3 = declare_add_norm(store, prefix + "norm3", c.model_dim);
    return p;
}

DecoderBlockActivations plan_decoder_block(Arena& arena, int B, int T, int S, const TransformerConfig& c,
                                           bool keep_weights) {
    const int N = B * T, C = c.model_dim;
    DecoderBlockActivations a;
    a.self_attn = plan_multi_head_attention(arena, B, T, T, C, c.heads, keep_weights);
    a.cross_attn = plan_multi_head_attention(arena, B, T, S, C, c.heads, keep_weights);
    a.ffn = plan_position_wise_ffn(arena, N, c.ffn_dim);
    a.norm1 = plan_add_norm(arena, N, C, c.pre_ln);
    a.norm2 = plan_add_norm(arena, N, C, c.pre_ln);
    a.norm3 = plan_add_norm(arena, N, C, c.pre_ln);
    for (float** buffer : {&a.self_out, &a.mid1, &a.cross_out, &a.mid2, &a.ffn_out, &a.out})
        *buffer = arena.take(size_t(N) * C);
    return a;
}

void decoder_block_forward(DecoderBlockActivations& a, const float* x, const float* memory, const ParameterStore& s,
                           const DecoderBlockParams& p, const AttnMask& self_mask, const AttnMask& cross_mask,
                           DropoutStream* dropout, int B, int T, int S, const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const float eps = c.layernorm_eps;
    auto next_dropout = [&] { return dropout ? dropout->next(size_t(N) * C) : Dropout{}; };
    auto w = [&](size_t offset) { return s.value_at(offset); };

    const float* in = add_norm_input(a.norm1, x, w(p.norm1.weight), w(p.norm1.bias), eps, N, C, c.pre_ln);
    multi_head_attention_forward(a.self_out, a.self_attn, in, in, multi_head_attention_weights(s, p.self_attn),
                                 self_mask, B, T, T, C, c.heads,
                                 dropout ? dropout->next(size_t(B) * c.heads * T * T) : Dropout{});
    add_norm_forward(a.mid1, a.norm1, x, a.self_out, w(p.norm1.weight), w(p.norm1.bias), next_dropout(), eps, N, C,
                     c.pre_ln);

    in = add_norm_input(a.norm2, a.mid1, w(p.norm2.weight), w(p.norm2.bias), eps, N, C, c.pre_ln);
    multi_head_attention_forward(a.cross_out, a.cross_attn, in, memory, multi_head_attention_weights(s, p.cross_attn),
                                 cross_mask, B, T, S, C, c.heads,
                                 dropout ? dropout->next(size_t(B) * c.heads * T * S) : Dropout{});
    add_norm_forward(a.mid2, a.norm2, a.mid1, a.cross_out, w(p.norm2.weight), w(p.norm2.bias), next_dropout(), eps, N,
                     C, c.pre_ln);

    in = add_norm_input(a.norm3, a.mid2, w(p.norm3.weight), w(p.norm3.bias), eps, N, C, c.pre_ln);
    position_wise_ffn_forward(a.ffn_out, a.ffn, in, w(p.ffn.w1), w(p.ffn.b1), w(p.ffn.w2), w(p.ffn.b2), c.activation, N,
                              C, c.ffn_dim);
    add_norm_forward(a.out, a.norm3, a.mid2, a.ffn_out, w(p.norm3.weight), w(p.norm3.bias), next_dropout(), eps, N, C,
                     c.pre_ln);
}

void decoder_block_cache_init(DecoderBlockCache& cache, const float* memory, const ParameterStore& s,
                              const DecoderBlockParams& p, int B, int S, int capacity, const TransformerConfig& c) {
    const int C = c.model_dim, H = c.heads, D = c.head_dim();
    cache.capacity = capacity;
    cache.steps = 0;
    cache.S = S;
    cache.self_k.assign(size_t(B) * H * capacity * D, 0.0f);
    cache.self_v.assign(size_t(B) * H * capacity * D, 0.0f);
    cache.memory_k.resize(size_t(B) * S * C);
    cache.memory_v.resize(size_t(B) * S * C);
    cache.self_weights.assign(size_t(B) * H * capacity, 0.0f);
    cache.cross_weights.assign(size_t(B) * H * S, 0.0f);
    const MultiHeadAttentionWeights w = multi_head_attention_weights(s, p.cross_attn);
    std::vector<float> projected(size_t(B) * S * C);
    linear_forward(projected.data(), memory, w.k_weight, w.k_bias, B * S, C, C);
    split_heads(cache.memory_k.data(), projected.data(), B, S, H, D);
    linear_forward(projected.data(), memory, w.v_weight, w.v_bias, B * S, C, C);
    split_heads(cache.memory_v.data(), projected.data(), B, S, H, D);
}

void decoder_block_step(float* out, DecoderBlockCache& cache, const float* x, const ParameterStore& s,
                        const DecoderBlockParams& p, const AttnMask& cross_mask, int B, const TransformerConfig& c) {
    const int C = c.model_dim, H = c.heads, D = c.head_dim(), t = cache.steps, cap = cache.capacity;
    if (t >= cap)
        throw Error("decoder step " + std::to_string(t + 1) + " exceeds the key/value cache capacity " +
                    std::to_string(cap));
    const float eps = c.layernorm_eps;
    auto w = [&](size_t offset) { return s.value_at(offset); };
    const size_t n = size_t(B) * C;
    // With one position per sequence, [B,1,H,D] and [B,H,1,D] are the same memory, so no head split is needed.
    std::vector<float> normed(n), q(n), k(n), v(n), heads(n), y(n), mid1(n), mid2(n), hidden(size_t(B) * c.ffn_dim),
        activated(size_t(B) * c.ffn_dim);

    auto sublayer_input = [&](const float* in, const AddNormParams& np) -> const float* {
        if (!c.pre_ln) return in;
        layernorm_forward(normed.data(), nullptr, nullptr, in, w(np.weight), w(np.bias), eps, B, C);
        return normed.data();
    };
    auto residual = [&](float* result, const float* in, const float* sub, const AddNormParams& np) {
        residual_forward(result, in, sub, int(n));
        if (!c.pre_ln) layernorm_forward(result, nullptr, nullptr, result, w(np.weight), w(np.bias), eps, B, C);
    };

    // Masked self-attention: the cache holds positions 0..t, so no causal mask is needed.
    const MultiHeadAttentionWeights sw = multi_head_attention_weights(s, p.self_attn);
    const float* in = sublayer_input(x, p.norm1);
    linear_forward(q.data(), in, sw.q_weight, sw.q_bias, B, C, C);
    linear_forward(k.data(), in, sw.k_weight, sw.k_bias, B, C, C);
    linear_forward(v.data(), in, sw.v_weight, sw.v_bias, B, C, C);
    for (int bh = 0; bh < B * H; ++bh) {
        const size_t base = size_t(bh) * cap * D;
        std::copy(k.begin() + size_t(bh) * D, k.begin() + size_t(bh + 1) * D,
                  cache.self_k.begin() + base + size_t(t) * D);
        std::copy(v.begin() + size_t(bh) * D, v.begin() + size_t(bh + 1) * D,
                  cache.self_v.begin() + base + size_t(t) * D);
        attention_forward(heads.data() + size_t(bh) * D, cache.self_weights.data() + size_t(bh) * cap,
                          q.data() + size_t(bh) * D, cache.self_k.data() + base, cache.self_v.data() + base, AttnMask{},
                          1, 1, 1, t + 1, D);
    }
    linear_forward(y.data(), heads.data(), sw.out_weight, sw.out_bias, B, C, C);
    residual(mid1.data(), x, y.data(), p.norm1);

    // Encoder-decoder attention over the projected memory.
    const MultiHeadAttentionWeights cw = multi_head_attention_weights(s, p.cross_attn);
    in = sublayer_input(mid1.data(), p.norm2);
    linear_forward(q.data(), in, cw.q_weight, cw.q_bias, B, C, C);
    attention_forward(heads.data(), cache.cross_weights.data(), q.data(), cache.memory_k.data(), cache.memory_v.data(),
                      cross_mask, B, H, 1, cache.S, D);
    linear_forward(y.data(), heads.data(), cw.out_weight, cw.out_bias, B, C, C);
    residual(mid2.data(), mid1.data(), y.data(), p.norm2);

    in = sublayer_input(mid2.data(), p.norm3);
    PositionWiseFfnActivations ffn{hidden.data(), activated.data()};
    position_wise_ffn_forward(y.data(), ffn, in, w(p.ffn.w1), w(p.ffn.b1), w(p.ffn.w2), w(p.ffn.b2), c.activation, B, C,
                              c.ffn_dim);
    residual(out, mid2.data(), y.data(), p.norm3);
    cache.steps = t + 1;
}

}  // namespace attend
