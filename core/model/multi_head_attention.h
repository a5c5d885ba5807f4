// Multi-head attention as torch.nn.MultiheadAttention (batch_first) and the seeds' MultiHeadAttention:
// separate q/k/v/out projections (bias optional), scaled dot-product attention per head with every mask
// kind of AttnMask (key_padding_mask, attn_mask bool/float, valid_lens, causal), per-head weights on request.
#pragma once
#include "kernels/attn_mask.h"
#include "model/arena.h"
#include "model/dropout.h"
#include "model/parameter_store.h"

#include <string>

namespace attend {

// Offsets of the parameters in a ParameterStore; a bias offset is meaningful only when `bias`.
struct MultiHeadAttentionParams {
    size_t q_weight = 0, q_bias = 0, k_weight = 0, k_bias = 0, v_weight = 0, v_bias = 0, out_weight = 0, out_bias = 0;
    bool bias = true;
};

// Declares `<prefix>.{q,k,v,out}_proj.weight [C,C]`, then (with bias) `<prefix>.{q,k,v,out}_proj.bias [C]`.
MultiHeadAttentionParams declare_multi_head_attention(ParameterStore& store, const std::string& prefix, int C,
                                                      bool bias);

// Pointers resolved from a store: values (for the forward) or gradients (for the backward).
template <class T>
struct MultiHeadAttentionTensors {
    T* q_weight;
    T* q_bias;
    T* k_weight;
    T* k_bias;
    T* v_weight;
    T* v_bias;
    T* out_weight;
    T* out_bias;
};
using MultiHeadAttentionWeights = MultiHeadAttentionTensors<const float>;
using MultiHeadAttentionGrads = MultiHeadAttentionTensors<float>;
MultiHeadAttentionWeights multi_head_attention_weights(const ParameterStore& store, const MultiHeadAttentionParams& p);
MultiHeadAttentionGrads multi_head_attention_grads(ParameterStore& store, const MultiHeadAttentionParams& p);
// The same from a buffer with the store's layout (its values, its gradients, or a device copy of either).
MultiHeadAttentionWeights multi_head_attention_weights(const float* values, const MultiHeadAttentionParams& p);
MultiHeadAttentionGrads multi_head_attention_grads(float* grads, const MultiHeadAttentionParams& p);

// What the forward keeps for the backward (and for looking at the attention maps).
struct MultiHeadAttentionActivations {
    float* q = nullptr;          // [B,H,Tq,D] projected queries, split into heads
    float* k = nullptr;          // [B,H,Tk,D]
    float* v = nullptr;          // [B,H,Tk,D]
    float* heads = nullptr;      // [B,H,Tq,D] attention output of each head
    float* concat = nullptr;     // [B,Tq,C] heads merged back, input of out_proj
    float* logsumexp = nullptr;  // [B,H,Tq]
    float* weights = nullptr;    // [B,H,Tq,Tk] attention weights, only when requested (else nullptr)
    float* scratch = nullptr;    // [B,max(Tq,Tk),3C] projections before the head split
    Dropout attention_dropout;   // dropout on the attention weights (training), recomputed by the backward
};

// [B,T,H*D] <-> [B,H,T,D]; row_stride (0 = H*D) is the distance between rows of the [B,T,...] side, so one
// head group can be read from / written into a wider row (the fused q|k|v projection).
void split_heads(float* out /*[B,H,T,D]*/, const float* x /*[B,T,row_stride]*/, int B, int T, int H, int D,
                 int row_stride = 0);
void merge_heads(float* out /*[B,T,row_stride]*/, const float* x /*[B,H,T,D]*/, int B, int T, int H, int D,
                 int row_stride = 0);

// Whether the k and v weights (and biases) lie back to back in memory, and for self-attention q, k and v, as
// declare_multi_head_attention lays them out: then their projections run as one wider matrix product.
bool multi_head_attention_fusable(const MultiHeadAttentionWeights& w, int C, bool self_attention);

// arena: an Arena (host) or the device ops (anything with float* take(size_t)).
template <class Alloc>
MultiHeadAttentionActivations plan_multi_head_attention(Alloc& arena, int B, int Tq, int Tk, int C, int H,
                                                        bool keep_weights) {
    MultiHeadAttentionActivations a;
    a.q = arena.take(size_t(B) * Tq * C);
    a.k = arena.take(size_t(B) * Tk * C);
    a.v = arena.take(size_t(B) * Tk * C);
    a.heads = arena.take(size_t(B) * Tq * C);
    a.concat = arena.take(size_t(B) * Tq * C);
    a.logsumexp = arena.take(size_t(B) * H * Tq);
    a.weights = keep_weights ? arena.take(size_t(B) * H * Tq * Tk) : nullptr;
    a.scratch = arena.take(size_t(B) * (Tq > Tk ? Tq : Tk) * 3 * C);
    return a;
}

// out [B,Tq,C]; x_query [B,Tq,C]; x_key_value [B,Tk,C] (may equal x_query for self-attention).
// attention_dropout (training): dropout on the [B,H,Tq,Tk] attention weights before they weight the values, as
// the seeds' DotProductAttention and nn.MultiheadAttention; acts.weights keeps the weights before dropout.
// ops: CpuOps (model/cpu_ops.h) or the CUDA ops.
template <class Ops>
void multi_head_attention_forward(Ops& ops, float* out, MultiHeadAttentionActivations& a, const float* x_query,
                                  const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                  int B, int Tq, int Tk, int C, int H, const Dropout& attention_dropout) {
    const int D = C / H;
    a.attention_dropout = attention_dropout;
    const bool self_attention = x_query == x_key_value && Tq == Tk;
    if (self_attention && multi_head_attention_fusable(w, C, true)) {
        ops.linear_forward(a.scratch, x_query, w.q_weight, w.q_bias, B * Tq, C, 3 * C);  // [B*T, 3C] = q | k | v
        ops.split_heads(a.q, a.scratch, B, Tq, H, D, 3 * C);
        ops.split_heads(a.k, a.scratch + C, B, Tk, H, D, 3 * C);
        ops.split_heads(a.v, a.scratch + 2 * C, B, Tk, H, D, 3 * C);
    } else {
        ops.linear_forward(a.scratch, x_query, w.q_weight, w.q_bias, B * Tq, C, C);
        ops.split_heads(a.q, a.scratch, B, Tq, H, D);
        if (multi_head_attention_fusable(w, C, false)) {
            ops.linear_forward(a.scratch, x_key_value, w.k_weight, w.k_bias, B * Tk, C, 2 * C);  // [B*Tk, 2C] = k | v
            ops.split_heads(a.k, a.scratch, B, Tk, H, D, 2 * C);
            ops.split_heads(a.v, a.scratch + C, B, Tk, H, D, 2 * C);
        } else {
            ops.linear_forward(a.scratch, x_key_value, w.k_weight, w.k_bias, B * Tk, C, C);
            ops.split_heads(a.k, a.scratch, B, Tk, H, D);
            ops.linear_forward(a.scratch, x_key_value, w.v_weight, w.v_bias, B * Tk, C, C);
            ops.split_heads(a.v, a.scratch, B, Tk, H, D);
        }
    }
    ops.attention_forward(a.heads, a.weights, a.q, a.k, a.v, mask, B, H, Tq, Tk, D, 0.0f, a.logsumexp,
                          &attention_dropout);
    ops.merge_heads(a.concat, a.heads, B, Tq, H, D);
    ops.linear_forward(out, a.concat, w.out_weight, w.out_bias, B * Tq, C, C);
}

// The same on the CPU, with scratch of its own.
void multi_head_attention_forward(float* out, MultiHeadAttentionActivations& acts, const float* x_query,
                                  const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                  int B, int Tq, int Tk, int C, int H, const Dropout& attention_dropout = Dropout{});

}  // namespace attend
