// The Transformer's teacher-forced forward pass, written once over an ops policy: CpuOps (model/cpu_ops.h) runs it
// on the host (transformer_forward in model/transformer.h), the CUDA ops (native/cuda/cuda_ops.h) on a GPU. Both
// therefore draw the dropout counters in the same order, and the backward (core/train/transformer_backward.h)
// finds the same tensors.
#pragma once
#include "model/transformer.h"

#include <cmath>
#include <cstdint>

namespace attend {

// Carves a's tensors for a.B, a.S, a.T out of arena (an Arena, or the device ops: anything with float*
// take(size_t)); keep_weights also keeps every attention map.
template <class Alloc>
void plan_transformer_tensors(TransformerTensors& a, Alloc& arena, const TransformerConfig& c, bool keep_weights) {
    const int B = a.B, S = a.S, T = a.T, C = c.model_dim;
    a.src_embedded = arena.take(size_t(B) * S * C);
    a.encoder.clear();
    for (int i = 0; i < c.encoder_layers; ++i) a.encoder.push_back(plan_encoder_block(arena, B, S, c, keep_weights));
    a.memory = arena.take(size_t(B) * S * C);
    a.encoder_norm_mean = arena.take(size_t(B) * S);
    a.encoder_norm_rstd = arena.take(size_t(B) * S);
    a.tgt_embedded = arena.take(size_t(B) * T * C);
    a.decoder.clear();
    for (int i = 0; i < c.decoder_layers; ++i) a.decoder.push_back(plan_decoder_block(arena, B, T, S, c, keep_weights));
    a.decoded = arena.take(size_t(B) * T * C);
    a.decoder_norm_mean = arena.take(size_t(B) * T);
    a.decoder_norm_rstd = arena.take(size_t(B) * T);
    a.logits = arena.take(size_t(B) * T * c.tgt_vocab);
}

// out [B*T,C] = dropout(table[ids] * sqrt(C) + P[t]); used: the dropout applied (inactive without a stream).
template <class Ops>
void transformer_embed(Ops& ops, float* out, Dropout& used, const int* ids, const float* table, int V,
                       DropoutStream* dropout, int B, int T, int C) {
    ops.embedding_forward(out, ids, table, std::sqrt(float(C)), B * T, C, V);
    ops.positional_encoding_add(out, B, T, C, 0);
    used = dropout ? dropout->next(size_t(B) * T * C) : Dropout{};
    if (used.active()) ops.dropout_forward(out, out, used, int64_t(B) * T * C);
}

// out [N,C] = a stack's final LayerNorm of x [N,C] (mean, rstd [N]), or x itself without final_norm.
template <class Ops>
void transformer_final_norm(Ops& ops, float* out, float* mean, float* rstd, const float* x, const float* values,
                            const AddNormParams& norm, const TransformerConfig& c, int N) {
    if (c.final_norm)
        ops.layernorm_forward(out, mean, rstd, x, values + norm.weight, values + norm.bias, c.layernorm_eps, N,
                              c.model_dim);
    else
        ops.copy(out, x, size_t(N) * c.model_dim);
}

// src [B,S] token ids -> a.memory. values: the parameters in m's layout, on the ops' device.
template <class Ops>
void transformer_encode(Ops& ops, TransformerTensors& a, const TransformerLayout& m, const float* values,
                        const int* src, const AttnMask& source_mask, DropoutStream* dropout) {
    const TransformerConfig& c = m.config;
    const int B = a.B, S = a.S, C = c.model_dim;
    transformer_embed(ops, a.src_embedded, a.src_dropout, src, values + m.src_embedding, c.src_vocab, dropout, B, S, C);
    const float* x = a.src_embedded;
    for (int i = 0; i < c.encoder_layers; ++i) {
        encoder_block_forward(ops, a.encoder[i], x, values, m.encoder[i], source_mask, dropout, B, S, c);
        x = a.encoder[i].out;
    }
    transformer_final_norm(ops, a.memory, a.encoder_norm_mean, a.encoder_norm_rstd, x, values, m.encoder_norm, c,
                           B * S);
}

// src [B,S], tgt [B,T] token ids -> a.logits [B,T,V]. source_mask: encoder self-attention and encoder-decoder
// attention; target_mask: decoder self-attention (causal). dropout: null for none.
template <class Ops>
void transformer_forward(Ops& ops, TransformerTensors& a, const TransformerLayout& m, const float* values,
                         const int* src, const int* tgt, const AttnMask& source_mask, const AttnMask& target_mask,
                         DropoutStream* dropout) {
    const TransformerConfig& c = m.config;
    const int B = a.B, S = a.S, T = a.T, C = c.model_dim;
    transformer_encode(ops, a, m, values, src, source_mask, dropout);
    transformer_embed(ops, a.tgt_embedded, a.tgt_dropout, tgt, values + m.tgt_embedding, c.tgt_vocab, dropout, B, T, C);
    const float* x = a.tgt_embedded;
    for (int i = 0; i < c.decoder_layers; ++i) {
        decoder_block_forward(ops, a.decoder[i], x, a.memory, values, m.decoder[i], target_mask, source_mask, dropout,
                              B, T, S, c);
        x = a.decoder[i].out;
    }
    transformer_final_norm(ops, a.decoded, a.decoder_norm_mean, a.decoder_norm_rstd, x, values, m.decoder_norm, c,
                           B * T);
    ops.linear_forward(a.logits, a.decoded, values + m.output_weight, values + m.output_bias, B * T, C, c.tgt_vocab);
}

}  // namespace attend
