#include "train/encoder_block_backward.h"

#include "train/add_norm_backward.h"
#include "train/multi_head_attention_backward.h"
#include "train/position_wise_ffn_backward.h"

#include <algorithm>
#include <vector>

namespace attend {

void encoder_block_backward(float* dx, const float* dout, const EncoderBlockActivations& a, const float* x,
                            ParameterStore& s, const EncoderBlockParams& p, const AttnMask& mask, int B, int T,
                            const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    const size_t n = size_t(N) * C;
    auto w = [&](size_t offset) { return s.value_at(offset); };
    auto g = [&](size_t offset) { return s.grad_at(offset); };
    std::vector<float> dmid(n, 0.0f), dsub(n, 0.0f), din(n, 0.0f);

    add_norm_backward(dmid.data(), dsub.data(), g(p.norm2.weight), g(p.norm2.bias), dout, a.norm2, w(p.norm2.weight), N,
                      C, c.pre_ln);
    const float* in2 = c.pre_ln ? a.norm2.normed : a.mid;
    position_wise_ffn_backward(din.data(), g(p.ffn.w1), g(p.ffn.b1), g(p.ffn.w2), g(p.ffn.b2), dsub.data(), a.ffn, in2,
                               w(p.ffn.w1), w(p.ffn.w2), c.activation, N, C, c.ffn_dim);
    add_norm_input_backward(dmid.data(), g(p.norm2.weight), g(p.norm2.bias), din.data(), a.norm2, a.mid,
                            w(p.norm2.weight), N, C, c.pre_ln);

    std::fill(dsub.begin(), dsub.end(), 0.0f);
    std::fill(din.begin(), din.end(), 0.0f);
    add_norm_backward(dx, dsub.data(), g(p.norm1.weight), g(p.norm1.bias), dmid.data(), a.norm1, w(p.norm1.weight), N,
                      C, c.pre_ln);
    const float* in1 = c.pre_ln ? a.norm1.normed : x;
    multi_head_attention_backward(din.data(), din.data(), multi_head_attention_grads(s, p.self_attn), dsub.data(),
                                  a.self_attn, in1, in1, multi_head_attention_weights(s, p.self_attn), mask, B, T, T, C,
                                  c.heads);
    add_norm_input_backward(dx, g(p.norm1.weight), g(p.norm1.bias), din.data(), a.norm1, x, w(p.norm1.weight), N, C,
                            c.pre_ln);
}

}  // namespace attend
