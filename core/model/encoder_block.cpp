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

}  // namespace attend
