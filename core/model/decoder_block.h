// The seeds' DecoderBlock (= nn.TransformerDecoderLayer): masked self-attention, encoder-decoder attention
// and a position-wise FFN, each wrapped in AddNorm (post-LN, or pre-LN when config.pre_ln). Two ways to run it:
// the whole target sequence at once (training, teacher forcing), or one step at a time with a key/value cache
// (inference), which gives the same outputs.
#pragma once
#include "kernels/attn_mask.h"
#include "model/add_norm.h"
#include "model/multi_head_attention.h"
#include "model/position_wise_ffn.h"
#include "model/transformer_config.h"

#include <cstdint>
#include <vector>

namespace attend {

// Names: <prefix>self_attn.*, <prefix>cross_attn.*, <prefix>linear1/2.*, <prefix>norm1/2/3.*
struct DecoderBlockParams {
    MultiHeadAttentionParams self_attn, cross_attn;
    PositionWiseFfnParams ffn;
    AddNormParams norm1, norm2, norm3;
};
DecoderBlockParams declare_decoder_block(ParameterStore& store, const std::string& prefix, const TransformerConfig& c);

struct DecoderBlockActivations {
    MultiHeadAttentionActivations self_attn, cross_attn;
    PositionWiseFfnActivations ffn;
    AddNormActivations norm1, norm2, norm3;
    float* self_out = nullptr;   // [B*T,C]
    float* mid1 = nullptr;       // [B*T,C]
    float* cross_out = nullptr;  // [B*T,C]
    float* mid2 = nullptr;       // [B*T,C]
    float* ffn_out = nullptr;    // [B*T,C]
    float* out = nullptr;        // [B*T,C]
};
template <class Alloc>
DecoderBlockActivations plan_decoder_block(Alloc& arena, int B, int T, int S, const TransformerConfig& c,
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

// x [B,T,C] target side; memory [B,S,C] encoder output; values: the parameters (a ParameterStore's layout, on the
// ops' device). self_mask: causal (+ target padding); cross_mask: source padding. Result in acts.out.
template <class Ops>
void decoder_block_forward(Ops& ops, DecoderBlockActivations& a, const float* x, const float* memory,
                           const float* values, const DecoderBlockParams& p, const AttnMask& self_mask,
                           const AttnMask& cross_mask, DropoutStream* dropout, int B, int T, int S,
                           const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const float eps = c.layernorm_eps;
    auto next_dropout = [&] { return dropout ? dropout->next(size_t(N) * C) : Dropout{}; };
    auto w = [&](size_t offset) { return values + offset; };

    const float* in = add_norm_input(ops, a.norm1, x, w(p.norm1.weight), w(p.norm1.bias), eps, N, C, c.pre_ln);
    multi_head_attention_forward(ops, a.self_out, a.self_attn, in, in,
                                 multi_head_attention_weights(values, p.self_attn), self_mask, B, T, T, C, c.heads,
                                 dropout ? dropout->next(size_t(B) * c.heads * T * T, c.attention_dropout_rate())
                                         : Dropout{});
    add_norm_forward(ops, a.mid1, a.norm1, x, a.self_out, w(p.norm1.weight), w(p.norm1.bias), next_dropout(), eps, N,
                     C, c.pre_ln);

    in = add_norm_input(ops, a.norm2, a.mid1, w(p.norm2.weight), w(p.norm2.bias), eps, N, C, c.pre_ln);
    multi_head_attention_forward(ops, a.cross_out, a.cross_attn, in, memory,
                                 multi_head_attention_weights(values, p.cross_attn), cross_mask, B, T, S, C, c.heads,
                                 dropout ? dropout->next(size_t(B) * c.heads * T * S, c.attention_dropout_rate())
                                         : Dropout{});
    add_norm_forward(ops, a.mid2, a.norm2, a.mid1, a.cross_out, w(p.norm2.weight), w(p.norm2.bias), next_dropout(), eps,
                     N, C, c.pre_ln);

    in = add_norm_input(ops, a.norm3, a.mid2, w(p.norm3.weight), w(p.norm3.bias), eps, N, C, c.pre_ln);
    position_wise_ffn_forward(ops, a.ffn_out, a.ffn, in, w(p.ffn.w1), w(p.ffn.b1), w(p.ffn.w2), w(p.ffn.b2),
                              c.activation, N, C, c.ffn_dim);
    add_norm_forward(ops, a.out, a.norm3, a.mid2, a.ffn_out, w(p.norm3.weight), w(p.norm3.bias), next_dropout(), eps, N,
                     C, c.pre_ln);
}

// Incremental decoding state of one block for B sequences (hypotheses). The buffers only grow: a decoding step
// allocates nothing once they have their size.
struct DecoderBlockCache {
    int capacity = 0;             // max target steps
    int steps = 0;                // positions already in the cache
    int rows = 0;                 // B: sequences in the self-attention cache
    int memory_rows = 0;          // rows of memory_k/v: B, or 1 when every sequence attends to the same source
    int S = 0;
    std::vector<float> self_k;    // [rows,H,capacity,D] (positions 0..steps-1 meaningful)
    std::vector<float> self_v;    // [rows,H,capacity,D]
    std::vector<float> spare_k, spare_v;  // decoder_block_cache_select gathers into these, then swaps
    std::vector<float> memory_k;  // [memory_rows,H,S,D] encoder-side keys, projected once
    std::vector<float> memory_v;  // [memory_rows,H,S,D]
    std::vector<float> scratch;   // the step's activations
};

// Projects the memory once and empties the self-attention cache. memory [B,S,C]. With B = 1 every row the cache
// later holds (beam hypotheses of one sentence) attends to that one memory.
void decoder_block_cache_init(DecoderBlockCache& cache, const float* memory, const ParameterStore& store,
                              const DecoderBlockParams& p, int B, int S, int capacity, const TransformerConfig& c);

// One target position per sequence: x [B,C] (position cache.steps) -> out [B,C]. cross_mask: source padding
// (valid_lens per memory row; no other mask kind). weights_f16: nullptr, or a half-float copy of the store's
// values (at the same offsets) to read the matrices from (Transformer::decode_f16). Throws attend::Error when
// the cache is full.
void decoder_block_step(float* out, DecoderBlockCache& cache, const float* x, const ParameterStore& store,
                        const DecoderBlockParams& p, const AttnMask& cross_mask, int B, const TransformerConfig& c,
                        const uint16_t* weights_f16 = nullptr);

// Row i of the cache continues row parents[i] (parents [n], may repeat): copies the filled positions only.
void decoder_block_cache_select(DecoderBlockCache& cache, const int* parents, int n, const TransformerConfig& c);

}  // namespace attend
