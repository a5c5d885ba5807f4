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
EncoderBlockActivations plan_encoder_block(Arena& arena, int B, int T, const TransformerConfig& c, bool keep_weights);

// x [B,T,C]; result in acts.out. mask: the source mask (valid_lens / key padding). dropout may be null (none).
void encoder_block_forward(EncoderBlockActivations& acts, const float* x, const ParameterStore& store,
                           const EncoderBlockParams& p, const AttnMask& mask, DropoutStream* dropout, int B, int T,
                           const TransformerConfig& c);

}  // namespace attend
