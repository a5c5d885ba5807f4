#include "train/transformer_backward.h"

#include "train/decoder_block_backward.h"
#include "train/dropout.h"
#include "train/embedding_backward.h"
#include "train/encoder_block_backward.h"
#include "train/layernorm_backward.h"
#include "train/linear_backward.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attend {

namespace {

// Gradient of dropout(table[ids] * sqrt(C) + P) with respect to the table; P is a constant.
void embed_backward(float* dtable, const float* dembedded, const Dropout& dropout, const int* ids, int pad_id, int V,
                    int N, int C) {
    const float* d = dembedded;
    std::vector<float> undropped;
    if (dropout.active()) {
        undropped.assign(size_t(N) * C, 0.0f);
        dropout_backward(undropped.data(), dembedded, dropout, int64_t(N) * C);
        d = undropped.data();
    }
    embedding_backward(dtable, d, ids, std::sqrt(float(C)), pad_id, N, C, V);
}

}  // namespace

void transformer_backward(Transformer& m, const TransformerActivations& a, const float* dlogits, const int* src,
                          const int* tgt) {
    const TransformerConfig& c = m.config;
    const int B = a.B, S = a.S, T = a.T, C = c.model_dim;
    ParameterStore& s = m.params;
    auto w = [&](size_t offset) { return s.value_at(offset); };
    auto g = [&](size_t offset) { return s.grad_at(offset); };
    const size_t nt = size_t(B) * T * C, ns = size_t(B) * S * C;

    // Decoder side, top to bottom.
    std::vector<float> ddecoded(nt, 0.0f), dx(nt, 0.0f), dprev(nt), dmemory(ns, 0.0f);
    linear_backward(ddecoded.data(), g(m.output_weight), g(m.output_bias), dlogits, a.decoded, w(m.output_weight),
                    B * T, C, c.tgt_vocab);
    const float* last_decoder_out = c.decoder_layers ? a.decoder.back().out : a.tgt_embedded;
    if (c.final_norm)
        layernorm_backward(dx.data(), g(m.decoder_norm.weight), g(m.decoder_norm.bias), ddecoded.data(),
                           last_decoder_out, a.decoder_norm_mean, a.decoder_norm_rstd, w(m.decoder_norm.weight), B * T,
                           C);
    else
        dx.swap(ddecoded);
    const AttnMask self_mask = a.target_mask(), cross_mask = a.source_mask();
    for (int i = c.decoder_layers - 1; i >= 0; --i) {
        const float* x = i ? a.decoder[i - 1].out : a.tgt_embedded;
        std::fill(dprev.begin(), dprev.end(), 0.0f);
        decoder_block_backward(dprev.data(), dmemory.data(), dx.data(), a.decoder[i], x, a.memory, s, m.decoder[i],
                               self_mask, cross_mask, B, T, S, c);
        dx.swap(dprev);
    }
    embed_backward(g(m.tgt_embedding), dx.data(), a.tgt_dropout, tgt, c.pad_id, c.tgt_vocab, B * T, C);

    // Encoder side, from the gradient every decoder layer sent to the memory.
    std::vector<float> ds(ns, 0.0f), dsprev(ns);
    const float* last_encoder_out = c.encoder_layers ? a.encoder.back().out : a.src_embedded;
    if (c.final_norm)
        layernorm_backward(ds.data(), g(m.encoder_norm.weight), g(m.encoder_norm.bias), dmemory.data(),
                           last_encoder_out, a.encoder_norm_mean, a.encoder_norm_rstd, w(m.encoder_norm.weight), B * S,
                           C);
    else
        ds.swap(dmemory);
    for (int i = c.encoder_layers - 1; i >= 0; --i) {
        const float* x = i ? a.encoder[i - 1].out : a.src_embedded;
        std::fill(dsprev.begin(), dsprev.end(), 0.0f);
        encoder_block_backward(dsprev.data(), ds.data(), a.encoder[i], x, s, m.encoder[i], cross_mask, B, S, c);
        ds.swap(dsprev);
    }
    embed_backward(g(m.src_embedding), ds.data(), a.src_dropout, src, c.pad_id, c.src_vocab, B * S, C);
}

}  // namespace attend
