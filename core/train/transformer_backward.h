// Backward of transformer_forward (core/model/transformer_forward.h): from dlogits to every parameter gradient
// (accumulated, +=; zero the gradients between steps). Written once over an ops policy: CpuTrainOps
// (train/cpu_train_ops.h) on the host, the CUDA ops (native/cuda/cuda_ops.h) on a GPU.
#pragma once
#include "model/transformer.h"
#include "train/decoder_block_backward.h"
#include "train/encoder_block_backward.h"

#include <cmath>
#include <cstdint>
#include <utility>

namespace attend {

// Gradient of dropout(table[ids] * sqrt(C) + P) with respect to the table (dtable [V,C]); P is a constant.
// dembedded [N,C]; ids [N].
template <class Ops>
void transformer_embed_backward(Ops& ops, float* dtable, const float* dembedded, const Dropout& dropout,
                                const int* ids, int pad_id, int V, int N, int C) {
    const auto mark = ops.mark();
    const float* d = dembedded;
    if (dropout.active()) {
        float* undropped = ops.take_zero(size_t(N) * C);
        ops.dropout_backward(undropped, dembedded, dropout, int64_t(N) * C);
        d = undropped;
    }
    ops.embedding_backward(dtable, d, ids, std::sqrt(float(C)), pad_id, N, C, V);
    ops.release(mark);
}

// Through transformer_final_norm: returns the gradient of its input x [N,C], dx (zeros on entry) after the
// LayerNorm's backward, or dout itself without final_norm.
template <class Ops>
float* transformer_final_norm_backward(Ops& ops, float* dx, float* dout, const float* x, const float* mean,
                                       const float* rstd, const float* values, float* grads, const AddNormParams& norm,
                                       const TransformerConfig& c, int N) {
    if (!c.final_norm) return dout;
    ops.layernorm_backward(dx, grads + norm.weight, grads + norm.bias, dout, x, mean, rstd, values + norm.weight, N,
                           c.model_dim);
    return dx;
}

// dlogits [B,T,V]; a, src [B,S], tgt [B,T] and the masks exactly as the forward had them; values / grads: the
// parameters in m's layout and their gradients, on the ops' device.
template <class Ops>
void transformer_backward(Ops& ops, const TransformerLayout& m, const float* values, float* grads,
                          const TransformerTensors& a, const float* dlogits, const int* src, const int* tgt,
                          const AttnMask& source_mask, const AttnMask& target_mask) {
    const TransformerConfig& c = m.config;
    const int B = a.B, S = a.S, T = a.T, C = c.model_dim;
    auto w = [&](size_t offset) { return values + offset; };
    auto g = [&](size_t offset) { return grads + offset; };
    const size_t nt = size_t(B) * T * C, ns = size_t(B) * S * C;
    const auto mark = ops.mark();

    // Decoder side, top to bottom.
    float* ddecoded = ops.take_zero(nt);
    float* dx = ops.take_zero(nt);
    float* dprev = ops.take(nt);
    float* dmemory = ops.take_zero(ns);
    ops.linear_backward(ddecoded, g(m.output_weight), g(m.output_bias), dlogits, a.decoded, w(m.output_weight), B * T,
                        C, c.tgt_vocab);
    dx = transformer_final_norm_backward(ops, dx, ddecoded, c.decoder_layers ? a.decoder.back().out : a.tgt_embedded,
                                         a.decoder_norm_mean, a.decoder_norm_rstd, values, grads, m.decoder_norm, c,
                                         B * T);
    for (int i = c.decoder_layers - 1; i >= 0; --i) {
        const float* x = i ? a.decoder[i - 1].out : a.tgt_embedded;
        ops.zero(dprev, nt);
        decoder_block_backward(ops, dprev, dmemory, dx, a.decoder[i], x, a.memory, values, grads, m.decoder[i],
                               target_mask, source_mask, B, T, S, c);
        std::swap(dx, dprev);
    }
    transformer_embed_backward(ops, g(m.tgt_embedding), dx, a.tgt_dropout, tgt, c.pad_id, c.tgt_vocab, B * T, C);

    // Encoder side, from the gradient every decoder layer sent to the memory.
    float* ds = ops.take_zero(ns);
    float* dsprev = ops.take(ns);
    ds = transformer_final_norm_backward(ops, ds, dmemory, c.encoder_layers ? a.encoder.back().out : a.src_embedded,
                                         a.encoder_norm_mean, a.encoder_norm_rstd, values, grads, m.encoder_norm, c,
                                         B * S);
    for (int i = c.encoder_layers - 1; i >= 0; --i) {
        const float* x = i ? a.encoder[i - 1].out : a.src_embedded;
        ops.zero(dsprev, ns);
        encoder_block_backward(ops, dsprev, ds, a.encoder[i], x, values, grads, m.encoder[i], source_mask, B, S, c);
        std::swap(ds, dsprev);
    }
    transformer_embed_backward(ops, g(m.src_embedding), ds, a.src_dropout, src, c.pad_id, c.src_vocab, B * S, C);
    ops.release(mark);
}

// transformer_forward (model/transformer.h) as the trainer runs it: over CpuTrainOps, whose products go through
// train/gemm.h. Decoding keeps core's. Same arguments and result.
void transformer_train_forward(TransformerActivations& acts, const Transformer& model, const int* src,
                               const int* src_valid_lens, const int* tgt, const int* tgt_valid_lens,
                               DropoutStream* dropout);

// The same on the CPU over a TransformerActivations: dlogits [B,T,V]; acts, src [B,S] and tgt [B,T] exactly as
// passed to transformer_forward or transformer_train_forward; the gradients go to model.params.
void transformer_backward(Transformer& model, const TransformerActivations& acts, const float* dlogits, const int* src,
                          const int* tgt);

}  // namespace attend
