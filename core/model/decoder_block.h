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
DecoderBlockActivations plan_decoder_block(Arena& arena, int B, int T, int S, const TransformerConfig& c,
                                           bool keep_weights);

// x [B,T,C] target side; memory [B,S,C] encoder output. self_mask: causal (+ target padding); cross_mask: source
// padding. Result in acts.out.
void decoder_block_forward(DecoderBlockActivations& acts, const float* x, const float* memory,
                           const ParameterStore& store, const DecoderBlockParams& p, const AttnMask& self_mask,
                           const AttnMask& cross_mask, DropoutStream* dropout, int B, int T, int S,
                           const TransformerConfig& c);

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
