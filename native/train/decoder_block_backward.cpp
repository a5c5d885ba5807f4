#include "train/decoder_block_backward.h"

#include "train/add_norm_backward.h"
#include "train/multi_head_attention_backward.h"
#include "train/position_wise_ffn_backward.h"

#include <algorithm>
#include <vector>

namespace attend {

void decoder_block_backward(float* dx, float* dmemory, const float* dout, const DecoderBlockActivations& a,
                            const float* x, const float* memory, ParameterStore& s, const DecoderBlockParams& p,
                            const AttnMask& self_mask, const AttnMask& cross_mask, int B, int T, int S,
                            const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const size_t n = size_t(N) * C;
    auto w = [&](size_t offset) { return s.value_at(offset); };
    auto g = [&](size_t offset) { return s.grad_at(offset); };
    std::vector<float> dmid2(n, 0.0f), dmid1(n, 0.0f), dsub(n), din(n);
    auto clear = [&] {
        std::fill(dsub.begin(), dsub.end(), 0.0f);
        std::fill(din.begin(), din.end(), 0.0f);
    };

    clear();
    add_norm_backward(dmid2.data(), dsub.data(), g(p.norm3.weight), g(p.norm3.bias), dout, a.norm3, w(p.norm3.weight),
                      N, C, c.pre_ln);
    const float* in3 = c.pre_ln ? a.norm3.normed : a.mid2;
    position_wise_ffn_backward(din.data(), g(p.ffn.w1), g(p.ffn.b1), g(p.ffn.w2), g(p.ffn.b2), dsub.data(), a.ffn, in3,
                               w(p.ffn.w1), w(p.ffn.w2), c.activation, N, C, c.ffn_dim);
    add_norm_input_backward(dmid2.data(), g(p.norm3.weight), g(p.norm3.bias), din.data(), a.norm3, a.mid2,
                            w(p.norm3.weight), N, C, c.pre_ln);

    clear();
    add_norm_backward(dmid1.data(), dsub.data(), g(p.norm2.weight), g(p.norm2.bias), dmid2.data(), a.norm2,
                      w(p.norm2.weight), N, C, c.pre_ln);
    const float* in2 = c.pre_ln ? a.norm2.normed : a.mid1;
    multi_head_attention_backward(din.data(), dmemory, multi_head_attention_grads(s, p.cross_attn), dsub.data(),
                                  a.cross_attn, in2, memory, multi_head_attention_weights(s, p.cross_attn), cross_mask,
                                  B, T, S, C, c.heads);
    add_norm_input_backward(dmid1.data(), g(p.norm2.weight), g(p.norm2.bias), din.data(), a.norm2, a.mid1,
                            w(p.norm2.weight), N, C, c.pre_ln);

    clear();
    add_norm_backward(dx, dsub.data(), g(p.norm1.weight), g(p.norm1.bias), dmid1.data(), a.norm1, w(p.norm1.weight), N,
                      C, c.pre_ln);
    const float* in1 = c.pre_ln ? a.norm1.normed : x;
    multi_head_attention_backward(din.data(), din.data(), multi_head_attention_grads(s, p.self_attn), dsub.data(),
                                  a.self_attn, in1, in1, multi_head_attention_weights(s, p.self_attn), self_mask, B, T,
                                  T, C, c.heads);
    add_norm_input_backward(dx, g(p.norm1.weight), g(p.norm1.bias), din.data(), a.norm1, x, w(p.norm1.weight), N, C,
                            c.pre_ln);
}

}  // namespace attend
