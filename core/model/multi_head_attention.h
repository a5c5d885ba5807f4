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
MultiHeadAttentionActivations plan_multi_head_attention(Arena& arena, int B, int Tq, int Tk, int C, int H,
                                                        bool keep_weights);

// out [B,Tq,C]; x_query [B,Tq,C]; x_key_value [B,Tk,C] (may equal x_query for self-attention).
// attention_dropout (training): dropout on the [B,H,Tq,Tk] attention weights before they weight the values, as
// the seeds' DotProductAttention and nn.MultiheadAttention; acts.weights keeps the weights before dropout.
void multi_head_attention_forward(float* out, MultiHeadAttentionActivations& acts, const float* x_query,
                                  const float* x_key_value, const MultiHeadAttentionWeights& w, const AttnMask& mask,
                                  int B, int Tq, int Tk, int C, int H, const Dropout& attention_dropout = Dropout{});

// [B,T,H*D] <-> [B,H,T,D]; row_stride (0 = H*D) is the distance between rows of the [B,T,...] side, so one
// head group can be read from / written into a wider row (the fused q|k|v projection).
void split_heads(float* out /*[B,H,T,D]*/, const float* x /*[B,T,row_stride]*/, int B, int T, int H, int D,
                 int row_stride = 0);
void merge_heads(float* out /*[B,T,row_stride]*/, const float* x /*[B,H,T,D]*/, int B, int T, int H, int D,
                 int row_stride = 0);

// Whether the k and v weights (and biases) lie back to back in memory, and for self-attention q, k and v, as
// declare_multi_head_attention lays them out: then their projections run as one wider matrix product.
bool multi_head_attention_fusable(const MultiHeadAttentionWeights& w, int C, bool self_attention);

}  // namespace attend
