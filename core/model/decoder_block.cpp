#include "model/decoder_block.h"

#include "error.h"
#include "kernels/activations.h"
#include "kernels/attention_step.h"
#include "kernels/linear_rows.h"
#include "kernels/layernorm.h"
#include "model/gather_rows.h"
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

void decoder_block_cache_init(DecoderBlockCache& cache, const float* memory, const ParameterStore& s,
                              const DecoderBlockParams& p, int B, int S, int capacity, const TransformerConfig& c) {
    const int C = c.model_dim, H = c.heads, D = c.head_dim();
    cache.capacity = capacity;
    cache.steps = 0;
    cache.rows = B;
    cache.memory_rows = B;
    cache.S = S;
    const size_t self_size = size_t(B) * H * capacity * D;
    if (cache.self_k.size() < self_size) {
        cache.self_k.resize(self_size);
        cache.self_v.resize(self_size);
    }
    cache.memory_k.resize(size_t(B) * S * C);
    cache.memory_v.resize(size_t(B) * S * C);
    const MultiHeadAttentionWeights w = multi_head_attention_weights(s, p.cross_attn);
    std::vector<float> projected(size_t(B) * S * C);
    linear_forward(projected.data(), memory, w.k_weight, w.k_bias, B * S, C, C);
    split_heads(cache.memory_k.data(), projected.data(), B, S, H, D);
    linear_forward(projected.data(), memory, w.v_weight, w.v_bias, B * S, C, C);
    split_heads(cache.memory_v.data(), projected.data(), B, S, H, D);
}

void decoder_block_step(float* out, DecoderBlockCache& cache, const float* x, const ParameterStore& s,
                        const DecoderBlockParams& p, const AttnMask& cross_mask, int B, const TransformerConfig& c,
                        const uint16_t* weights_f16) {
    const int C = c.model_dim, H = c.heads, D = c.head_dim(), F = c.ffn_dim, S = cache.S, t = cache.steps,
              cap = cache.capacity;
    if (t >= cap)
        throw Error("decoder step " + std::to_string(t + 1) + " exceeds the key/value cache capacity " +
                    std::to_string(cap));
    if (B != cache.rows)
        throw Error("decoder step: " + std::to_string(B) + " sequences, the cache holds " + std::to_string(cache.rows));
    if (cross_mask.valid_lens_per_query || cross_mask.key_padding || cross_mask.causal || cross_mask.bool_mask ||
        cross_mask.additive)
        throw Error("decoder step: the encoder-decoder mask may only give valid lengths");
    const float eps = c.layernorm_eps;
    auto w = [&](size_t offset) { return s.value_at(offset); };
    const size_t n = size_t(B) * C;

    // Scratch: normed [B,C] | qkv [B,3C] | heads [B,C] | y [B,C] | mid1 [B,C] | mid2 [B,C] | hidden [B,F] |
    // scores [max(capacity,S)]. With one position per sequence, [B,1,H,D] and [B,H,1,D] are the same memory.
    const size_t need = 8 * n + size_t(B) * F + size_t(std::max(cap, S));
    if (cache.scratch.size() < need) cache.scratch.resize(need);
    float* normed = cache.scratch.data();
    float* qkv = normed + n;
    float* heads = qkv + 3 * n;
    float* y = heads + n;
    float* mid1 = y + n;
    float* mid2 = mid1 + n;
    float* hidden = mid2 + n;
    float* scores = hidden + size_t(B) * F;

    // out [B,OC] = in [B,IC] weight^T + bias, weight read from its half-float copy when there is one.
    auto linear = [&](float* result, const float* in, const float* weight, const float* bias, int IC, int OC) {
        if (weights_f16)
            linear_rows_forward_f16(result, in, weights_f16 + (weight - s.values()), bias, B, IC, OC);
        else
            linear_rows_forward(result, in, weight, bias, B, IC, OC);
    };
    auto sublayer_input = [&](const float* in, const AddNormParams& np) -> const float* {
        if (!c.pre_ln) return in;
        layernorm_forward(normed, nullptr, nullptr, in, w(np.weight), w(np.bias), eps, B, C);
        return normed;
    };
    auto residual = [&](float* result, const float* in, const float* sub, const AddNormParams& np) {
        residual_forward(result, in, sub, int(n));
        if (!c.pre_ln) layernorm_forward(result, nullptr, nullptr, result, w(np.weight), w(np.bias), eps, B, C);
    };

    // Masked self-attention: the cache holds positions 0..t, so no causal mask is needed.
    const MultiHeadAttentionWeights sw = multi_head_attention_weights(s, p.self_attn);
    const float* in = sublayer_input(x, p.norm1);
    // q, k, v of row b: q_of + b * stride (k and v likewise).
    const float *q_of = qkv, *k_of, *v_of;
    int stride;
    if (multi_head_attention_fusable(sw, C, true)) {
        linear(qkv, in, sw.q_weight, sw.q_bias, C, 3 * C);  // [B, 3C] = q | k | v
        k_of = qkv + C;
        v_of = qkv + 2 * C;
        stride = 3 * C;
    } else {
        linear(qkv, in, sw.q_weight, sw.q_bias, C, C);
        linear(qkv + n, in, sw.k_weight, sw.k_bias, C, C);
        linear(qkv + 2 * n, in, sw.v_weight, sw.v_bias, C, C);
        k_of = qkv + n;
        v_of = qkv + 2 * n;
        stride = C;
    }
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const size_t bh = size_t(b) * H + h, base = bh * cap * D, at = size_t(b) * stride + size_t(h) * D;
            std::copy_n(k_of + at, D, cache.self_k.data() + base + size_t(t) * D);
            std::copy_n(v_of + at, D, cache.self_v.data() + base + size_t(t) * D);
            attention_step_forward(heads + size_t(b) * C + size_t(h) * D, nullptr, scores, q_of + at,
                                   cache.self_k.data() + base, cache.self_v.data() + base, t + 1, D);
        }
    linear(y, heads, sw.out_weight, sw.out_bias, C, C);
    residual(mid1, x, y, p.norm1);

    // Encoder-decoder attention over the projected memory (one memory row shared by all rows, or one each).
    const MultiHeadAttentionWeights cw = multi_head_attention_weights(s, p.cross_attn);
    in = sublayer_input(mid1, p.norm2);
    linear(qkv, in, cw.q_weight, cw.q_bias, C, C);
    for (int b = 0; b < B; ++b) {
        const int mb = cache.memory_rows == 1 ? 0 : b;
        const int keys = cross_mask.valid_lens ? std::clamp(cross_mask.valid_lens[mb], 0, S) : S;
        for (int h = 0; h < H; ++h) {
            const size_t base = (size_t(mb) * H + h) * S * D;
            attention_step_forward(heads + size_t(b) * C + size_t(h) * D, nullptr, scores,
                                   qkv + size_t(b) * C + size_t(h) * D, cache.memory_k.data() + base,
                                   cache.memory_v.data() + base, keys, D);
        }
    }
    linear(y, heads, cw.out_weight, cw.out_bias, C, C);
    residual(mid2, mid1, y, p.norm2);

    in = sublayer_input(mid2, p.norm3);
    linear(hidden, in, w(p.ffn.w1), w(p.ffn.b1), C, F);
    if (c.activation == Activation::GELU)
        gelu_forward(hidden, hidden, B * F);
    else
        relu_forward(hidden, hidden, B * F);
    linear(y, hidden, w(p.ffn.w2), w(p.ffn.b2), F, C);
    residual(out, mid2, y, p.norm3);
    cache.steps = t + 1;
}

void decoder_block_cache_select(DecoderBlockCache& cache, const int* parents, int n, const TransformerConfig& c) {
    const int H = c.heads, D = c.head_dim(), cap = cache.capacity;
    const size_t row = size_t(H) * cap * D, filled = size_t(cache.steps) * D;
    const size_t need = size_t(n) * row;
    if (cache.spare_k.size() < need) {
        cache.spare_k.resize(need);
        cache.spare_v.resize(need);
    }
    for (int i = 0; i < n; ++i)
        for (int h = 0; h < H; ++h) {
            const size_t from = size_t(parents[i]) * row + size_t(h) * cap * D, to = size_t(i) * row + size_t(h) * cap * D;
            std::copy_n(cache.self_k.data() + from, filled, cache.spare_k.data() + to);
            std::copy_n(cache.self_v.data() + from, filled, cache.spare_v.data() + to);
        }
    cache.self_k.swap(cache.spare_k);
    cache.self_v.swap(cache.spare_v);
    if (cache.memory_rows > 1) {
        gather_rows(cache.memory_k, size_t(cache.S) * c.model_dim, parents, n);
        gather_rows(cache.memory_v, size_t(cache.S) * c.model_dim, parents, n);
        cache.memory_rows = n;
    }
    cache.rows = n;
}

}  // namespace attend
