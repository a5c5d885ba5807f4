// Plain C++ (compiled by the host compiler): it only calls the *_cuda launch wrappers. Each function below mirrors
// the CPU function named in its comment line for line, so a difference between the two is easy to locate.
#include "cuda/transformer_cuda.h"

#include "cuda/activations_cuda.h"
#include "cuda/attention_cuda.h"
#include "cuda/cross_entropy_cuda.h"
#include "cuda/cublas_linear.h"
#include "cuda/device_memory.h"
#include "cuda/dropout_cuda.h"
#include "cuda/embedding_cuda.h"
#include "cuda/heads_cuda.h"
#include "cuda/layernorm_cuda.h"
#include "cuda/optimizer_cuda.h"
#include "error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace attend::cuda {

namespace {

// A TrainBatch as the host pointers the kernels' uploads read; null where the batch has no such vector.
struct TransformerBatchView {
    int B = 0, S = 0, T = 0;
    const int* src = nullptr;        // [B,S]
    const int* src_valid = nullptr;  // [B] or null (all valid)
    const int* tgt_in = nullptr;     // [B,T] decoder input
    const int* tgt_valid = nullptr;  // [B] or null
    const int* tgt_out = nullptr;    // [B,T] labels or null
};

TransformerBatchView view_of(const TrainBatch& b) {
    auto ptr = [](const std::vector<int>& v) { return v.empty() ? nullptr : v.data(); };
    return {b.B, b.S, b.T, ptr(b.src), ptr(b.src_valid), ptr(b.tgt_in), ptr(b.tgt_valid), ptr(b.tgt_out)};
}

// ------------------------------------------------------------------------------------------ activations (device)
struct MhaActs {  // MultiHeadAttentionActivations
    float *q = nullptr, *k = nullptr, *v = nullptr, *heads = nullptr, *concat = nullptr, *lse = nullptr,
          *scratch = nullptr;
    Dropout attention_dropout;
};
struct AddNormActs {  // AddNormActivations
    float *normed = nullptr, *sum = nullptr, *mean = nullptr, *rstd = nullptr;
    Dropout dropout;
};
struct FfnActs {  // PositionWiseFfnActivations
    float *hidden = nullptr, *activated = nullptr;
};
struct EncActs {  // EncoderBlockActivations
    MhaActs self_attn;
    FfnActs ffn;
    AddNormActs norm1, norm2;
    float *attn_out = nullptr, *mid = nullptr, *ffn_out = nullptr, *out = nullptr;
};
struct DecActs {  // DecoderBlockActivations
    MhaActs self_attn, cross_attn;
    FfnActs ffn;
    AddNormActs norm1, norm2, norm3;
    float *self_out = nullptr, *mid1 = nullptr, *cross_out = nullptr, *mid2 = nullptr, *ffn_out = nullptr,
          *out = nullptr;
};

float* take(DeviceArena& arena, size_t n, const char* what) { return arena.alloc<float>(n, what); }
float* take_zero(DeviceArena& arena, size_t n, const char* what) {
    float* p = arena.alloc<float>(n, what);
    zero_device(p, n);
    return p;
}

MhaActs plan_mha(DeviceArena& a, int B, int Tq, int Tk, int C, int H) {
    MhaActs m;
    m.q = take(a, size_t(B) * Tq * C, "attention q");
    m.k = take(a, size_t(B) * Tk * C, "attention k");
    m.v = take(a, size_t(B) * Tk * C, "attention v");
    m.heads = take(a, size_t(B) * Tq * C, "attention heads");
    m.concat = take(a, size_t(B) * Tq * C, "attention concat");
    m.lse = take(a, size_t(B) * H * Tq, "attention logsumexp");
    m.scratch = take(a, size_t(B) * std::max(Tq, Tk) * 3 * C, "attention projections");
    return m;
}
AddNormActs plan_add_norm(DeviceArena& a, int N, int C, bool pre_ln) {
    AddNormActs n;
    if (pre_ln)
        n.normed = take(a, size_t(N) * C, "layer norm input");
    else
        n.sum = take(a, size_t(N) * C, "residual sum");
    n.mean = take(a, N, "layer norm mean");
    n.rstd = take(a, N, "layer norm rstd");
    return n;
}
FfnActs plan_ffn(DeviceArena& a, int N, int F) {
    return FfnActs{take(a, size_t(N) * F, "ffn hidden"), take(a, size_t(N) * F, "ffn activated")};
}
EncActs plan_encoder_block(DeviceArena& a, int B, int T, const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    EncActs e;
    e.self_attn = plan_mha(a, B, T, T, C, c.heads);
    e.ffn = plan_ffn(a, N, c.ffn_dim);
    e.norm1 = plan_add_norm(a, N, C, c.pre_ln);
    e.norm2 = plan_add_norm(a, N, C, c.pre_ln);
    e.attn_out = take(a, size_t(N) * C, "encoder attn_out");
    e.mid = take(a, size_t(N) * C, "encoder mid");
    e.ffn_out = take(a, size_t(N) * C, "encoder ffn_out");
    e.out = take(a, size_t(N) * C, "encoder out");
    return e;
}
DecActs plan_decoder_block(DeviceArena& a, int B, int T, int S, const TransformerConfig& c) {
    const int N = B * T, C = c.model_dim;
    DecActs d;
    d.self_attn = plan_mha(a, B, T, T, C, c.heads);
    d.cross_attn = plan_mha(a, B, T, S, C, c.heads);
    d.ffn = plan_ffn(a, N, c.ffn_dim);
    d.norm1 = plan_add_norm(a, N, C, c.pre_ln);
    d.norm2 = plan_add_norm(a, N, C, c.pre_ln);
    d.norm3 = plan_add_norm(a, N, C, c.pre_ln);
    d.self_out = take(a, size_t(N) * C, "decoder self_out");
    d.mid1 = take(a, size_t(N) * C, "decoder mid1");
    d.cross_out = take(a, size_t(N) * C, "decoder cross_out");
    d.mid2 = take(a, size_t(N) * C, "decoder mid2");
    d.ffn_out = take(a, size_t(N) * C, "decoder ffn_out");
    d.out = take(a, size_t(N) * C, "decoder out");
    return d;
}

// ------------------------------------------------------------------------------------------ forward pieces
// multi_head_attention_forward
void mha_forward(float* out, MhaActs& a, const float* xq, const float* xkv, const MultiHeadAttentionWeights& w,
                 const AttnMask& mask, int B, int Tq, int Tk, int C, int H, const Dropout& attention_dropout) {
    const int D = C / H;
    a.attention_dropout = attention_dropout;
    const bool self_attention = xq == xkv && Tq == Tk;
    if (self_attention && multi_head_attention_fusable(w, C, true)) {
        linear_forward_cuda(a.scratch, xq, w.q_weight, w.q_bias, B * Tq, C, 3 * C);
        split_heads_cuda(a.q, a.scratch, B, Tq, H, D, 3 * C);
        split_heads_cuda(a.k, a.scratch + C, B, Tk, H, D, 3 * C);
        split_heads_cuda(a.v, a.scratch + 2 * C, B, Tk, H, D, 3 * C);
    } else {
        linear_forward_cuda(a.scratch, xq, w.q_weight, w.q_bias, B * Tq, C, C);
        split_heads_cuda(a.q, a.scratch, B, Tq, H, D);
        if (multi_head_attention_fusable(w, C, false)) {
            linear_forward_cuda(a.scratch, xkv, w.k_weight, w.k_bias, B * Tk, C, 2 * C);
            split_heads_cuda(a.k, a.scratch, B, Tk, H, D, 2 * C);
            split_heads_cuda(a.v, a.scratch + C, B, Tk, H, D, 2 * C);
        } else {
            linear_forward_cuda(a.scratch, xkv, w.k_weight, w.k_bias, B * Tk, C, C);
            split_heads_cuda(a.k, a.scratch, B, Tk, H, D);
            linear_forward_cuda(a.scratch, xkv, w.v_weight, w.v_bias, B * Tk, C, C);
            split_heads_cuda(a.v, a.scratch, B, Tk, H, D);
        }
    }
    // The fused kernel applies the attention dropout itself (same counters as the CPU's dropout_forward).
    attention_forward_cuda(a.heads, nullptr, a.q, a.k, a.v, mask, B, H, Tq, Tk, D, 0.0f, a.lse, &attention_dropout);
    merge_heads_cuda(a.concat, a.heads, B, Tq, H, D);
    linear_forward_cuda(out, a.concat, w.out_weight, w.out_bias, B * Tq, C, C);
}

// add_norm_input
const float* add_norm_input(AddNormActs& a, const float* x, const float* weight, const float* bias, float eps, int N,
                            int C, bool pre_ln) {
    if (!pre_ln) return x;
    layernorm_forward_cuda(a.normed, a.mean, a.rstd, x, weight, bias, eps, N, C);
    return a.normed;
}

// add_norm_forward
void add_norm_forward(float* out, AddNormActs& a, const float* x, float* y, const float* weight, const float* bias,
                      const Dropout& dropout, float eps, int N, int C, bool pre_ln) {
    a.dropout = dropout;
    if (dropout.active()) dropout_forward_cuda(y, y, dropout, int64_t(N) * C);
    if (pre_ln) {
        residual_forward_cuda(out, x, y, N * C);
    } else {
        residual_forward_cuda(a.sum, x, y, N * C);
        layernorm_forward_cuda(out, a.mean, a.rstd, a.sum, weight, bias, eps, N, C);
    }
}

// position_wise_ffn_forward
void ffn_forward(float* out, FfnActs& a, const float* x, const float* w1, const float* b1, const float* w2,
                 const float* b2, Activation activation, int N, int C, int F) {
    linear_forward_cuda(a.hidden, x, w1, b1, N, C, F);
    if (activation == Activation::GELU)
        gelu_forward_cuda(a.activated, a.hidden, N * F);
    else
        relu_forward_cuda(a.activated, a.hidden, N * F);
    linear_forward_cuda(out, a.activated, w2, b2, N, F, C);
}

// ------------------------------------------------------------------------------------------ backward pieces
// multi_head_attention_backward
void mha_backward(DeviceArena& arena, float* dxq, float* dxkv, const MultiHeadAttentionGrads& g, const float* dout,
                  const MhaActs& a, const float* xq, const float* xkv, const MultiHeadAttentionWeights& w,
                  const AttnMask& mask, int B, int Tq, int Tk, int C, int H) {
    const int D = C / H;
    const size_t nq = size_t(B) * Tq * C, nk = size_t(B) * Tk * C;
    const size_t mark = arena.mark();
    float* dconcat = take_zero(arena, nq, "mha backward dconcat");
    float* dheads = take(arena, nq, "mha backward dheads");
    float* dq = take_zero(arena, nq, "mha backward dq");
    float* dk = take_zero(arena, nk, "mha backward dk");
    float* dv = take_zero(arena, nk, "mha backward dv");
    float* dflat = take(arena, 3 * std::max(nq, nk), "mha backward dflat");
    float* delta = take(arena, size_t(B) * H * Tq, "attention backward delta");
    linear_backward_cuda(dconcat, g.out_weight, g.out_bias, dout, a.concat, w.out_weight, B * Tq, C, C);
    split_heads_cuda(dheads, dconcat, B, Tq, H, D);
    attention_backward_cuda(dq, dk, dv, delta, dheads, a.q, a.k, a.v, a.heads, a.lse, mask, B, H, Tq, Tk, D, 0.0f,
                            &a.attention_dropout);
    const MultiHeadAttentionWeights gw{g.q_weight, g.q_bias, g.k_weight,   g.k_bias,
                                       g.v_weight, g.v_bias, g.out_weight, g.out_bias};
    const bool self_attention = xq == xkv && Tq == Tk && dxq == dxkv;
    if (self_attention && multi_head_attention_fusable(w, C, true) && multi_head_attention_fusable(gw, C, true)) {
        merge_heads_cuda(dflat, dq, B, Tq, H, D, 3 * C);
        merge_heads_cuda(dflat + C, dk, B, Tk, H, D, 3 * C);
        merge_heads_cuda(dflat + 2 * C, dv, B, Tk, H, D, 3 * C);
        linear_backward_cuda(dxq, g.q_weight, g.q_bias, dflat, xq, w.q_weight, B * Tq, C, 3 * C);
    } else {
        merge_heads_cuda(dflat, dq, B, Tq, H, D);
        linear_backward_cuda(dxq, g.q_weight, g.q_bias, dflat, xq, w.q_weight, B * Tq, C, C);
        if (multi_head_attention_fusable(w, C, false) && multi_head_attention_fusable(gw, C, false)) {
            merge_heads_cuda(dflat, dk, B, Tk, H, D, 2 * C);
            merge_heads_cuda(dflat + C, dv, B, Tk, H, D, 2 * C);
            linear_backward_cuda(dxkv, g.k_weight, g.k_bias, dflat, xkv, w.k_weight, B * Tk, C, 2 * C);
        } else {
            merge_heads_cuda(dflat, dk, B, Tk, H, D);
            linear_backward_cuda(dxkv, g.k_weight, g.k_bias, dflat, xkv, w.k_weight, B * Tk, C, C);
            merge_heads_cuda(dflat, dv, B, Tk, H, D);
            linear_backward_cuda(dxkv, g.v_weight, g.v_bias, dflat, xkv, w.v_weight, B * Tk, C, C);
        }
    }
    arena.release(mark);  // kernels are ordered on the stream: later users of this memory run after these
}

// add_norm_backward
void add_norm_backward(DeviceArena& arena, float* dx, float* dy, float* dweight, float* dbias, const float* dout,
                       const AddNormActs& a, const float* weight, int N, int C, bool pre_ln) {
    const size_t mark = arena.mark();
    const float* dsum = dout;
    if (!pre_ln) {
        float* buf = take_zero(arena, size_t(N) * C, "add-norm backward dsum");
        layernorm_backward_cuda(buf, dweight, dbias, dout, a.sum, a.mean, a.rstd, weight, N, C);
        dsum = buf;
    }
    if (a.dropout.active()) {
        dropout_backward_cuda(dy, dsum, a.dropout, int64_t(N) * C);
        residual_forward_cuda(dx, dx, dsum, N * C);
    } else {
        residual_backward_cuda(dx, dy, dsum, N * C);
    }
    arena.release(mark);
}

// add_norm_input_backward
void add_norm_input_backward(float* dx, float* dweight, float* dbias, const float* dinput, const AddNormActs& a,
                             const float* x, const float* weight, int N, int C, bool pre_ln) {
    if (pre_ln)
        layernorm_backward_cuda(dx, dweight, dbias, dinput, x, a.mean, a.rstd, weight, N, C);
    else
        residual_forward_cuda(dx, dx, dinput, N * C);
}

// position_wise_ffn_backward
void ffn_backward(DeviceArena& arena, float* dx, float* dw1, float* db1, float* dw2, float* db2, const float* dout,
                  const FfnActs& a, const float* x, const float* w1, const float* w2, Activation activation, int N,
                  int C, int F) {
    const size_t mark = arena.mark();
    float* dactivated = take_zero(arena, size_t(N) * F, "ffn backward dactivated");
    float* dhidden = take_zero(arena, size_t(N) * F, "ffn backward dhidden");
    linear_backward_cuda(dactivated, dw2, db2, dout, a.activated, w2, N, F, C);
    if (activation == Activation::GELU)
        gelu_backward_cuda(dhidden, dactivated, a.hidden, N * F);
    else
        relu_backward_cuda(dhidden, dactivated, a.hidden, N * F);
    linear_backward_cuda(dx, dw1, db1, dhidden, x, w1, N, C, F);
    arena.release(mark);
}

// The CPU's ids and valid lengths are checked by the kernels that read them (they throw); the GPU kernels cannot,
// so the same checks run here on the host before the upload.
void check_ids(const int* ids, size_t n, int V, const char* what) {
    for (size_t i = 0; i < n; ++i)
        if (ids[i] < 0 || ids[i] >= V)
            throw Error(std::string("transformer (cuda): ") + what + " id " + std::to_string(ids[i]) + " at position " +
                        std::to_string(i) + " is outside the vocabulary [0, " + std::to_string(V) + ")");
}
void check_labels(const int* ids, size_t n, int V, int pad) {
    for (size_t i = 0; i < n; ++i)
        if (ids[i] != pad && (ids[i] < 0 || ids[i] >= V))
            throw Error("transformer (cuda): label " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                        " is outside [0, " + std::to_string(V) + ") and is not the padding id " + std::to_string(pad));
}
void check_lens(const int* lens, int B, int T, const char* what) {
    if (!lens) return;
    for (int b = 0; b < B; ++b)
        if (lens[b] < 0 || lens[b] > T)
            throw Error(std::string("transformer (cuda): ") + what + " valid length " + std::to_string(lens[b]) +
                        " of batch row " + std::to_string(b) + ", expected 0.." + std::to_string(T));
}

// A batch's ids go to the GPU in one asynchronous copy from page-locked memory, so the host goes on queueing the
// forward's kernels instead of waiting for five small synchronous copies. The staging memory is refilled only once
// the previous copy from it has run (an event marks it).
class IdUploader {
public:
    IdUploader() { CUDA_CHECK(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming)); }
    ~IdUploader() { cudaEventDestroy(copied_); }
    IdUploader(const IdUploader&) = delete;
    IdUploader& operator=(const IdUploader&) = delete;

    // out[i] = a device copy of parts[i] (sizes[i] ints), or null where parts[i] is null; all from `arena`.
    void upload(DeviceArena& arena, const int* const* parts, const size_t* sizes, int** out, int count) {
        size_t total = 0;
        for (int i = 0; i < count; ++i) total += parts[i] ? sizes[i] : 0;
        CUDA_CHECK(cudaEventSynchronize(copied_));
        int* host = staging_.reserve(total);
        int* device = arena.alloc<int>(total, "batch ids");
        size_t at = 0;
        for (int i = 0; i < count; ++i) {
            out[i] = parts[i] ? device + at : nullptr;
            if (!parts[i]) continue;
            std::copy(parts[i], parts[i] + sizes[i], host + at);
            at += sizes[i];
        }
        if (total)
            CUDA_CHECK(cudaMemcpyAsync(device, host, total * sizeof(int), cudaMemcpyHostToDevice, cudaStreamLegacy));
        CUDA_CHECK(cudaEventRecord(copied_, cudaStreamLegacy));
    }

private:
    PinnedBuffer<int> staging_;
    cudaEvent_t copied_ = nullptr;
};

}  // namespace

// ------------------------------------------------------------------------------------------ the model on the device
struct TransformerCuda::Impl {
    TransformerConfig config;
    size_t src_embedding = 0, tgt_embedding = 0, output_weight = 0, output_bias = 0;
    std::vector<EncoderBlockParams> encoder;
    std::vector<DecoderBlockParams> decoder;
    AddNormParams encoder_norm, decoder_norm;
    size_t n = 0;
    AdamConfig adam;
    int64_t adam_t = 0;

    DeviceBuffer<float> values, grads, m, v;
    DeviceBuffer<double> scalars;   // [0] loss total, [1] gradient norm
    DeviceBuffer<double> partials;  // global norm partial sums
    DeviceArena arena;
    IdUploader ids;

    // The last forward's activations (valid until the next forward).
    int B = 0, S = 0, T = 0;
    int *src = nullptr, *tgt_in = nullptr, *tgt_out = nullptr, *src_valid = nullptr, *tgt_valid = nullptr;
    float *src_embedded = nullptr, *memory = nullptr, *enc_mean = nullptr, *enc_rstd = nullptr;
    float *tgt_embedded = nullptr, *decoded = nullptr, *dec_mean = nullptr, *dec_rstd = nullptr, *logits = nullptr;
    Dropout src_dropout, tgt_dropout;
    std::vector<EncActs> enc;
    std::vector<DecActs> dec;

    Impl(const Transformer& model, const AdamConfig& a, size_t arena_bytes)
        : config(model.config), src_embedding(model.src_embedding), tgt_embedding(model.tgt_embedding),
          output_weight(model.output_weight), output_bias(model.output_bias), encoder(model.encoder),
          decoder(model.decoder), encoder_norm(model.encoder_norm), decoder_norm(model.decoder_norm),
          n(model.params.size()), adam(a), values(n), grads(n), m(n), v(n), scalars(2),
          partials(global_grad_norm_partials(n)), arena(arena_bytes) {
        if (config.head_dim() > kAttentionMaxHeadDim)
            throw Error("transformer (cuda): head dimension " + std::to_string(config.head_dim()) +
                        " (model_dim / heads), the CUDA attention kernels support at most " +
                        std::to_string(kAttentionMaxHeadDim));
        values.upload(model.params.values(), n);
        grads.zero();
        m.zero();
        v.zero();
    }

    const float* w(size_t offset) const { return values.get() + offset; }
    float* g(size_t offset) { return grads.get() + offset; }
    MultiHeadAttentionWeights mha_w(const MultiHeadAttentionParams& p) const {
        auto b = [&](size_t o) -> const float* { return p.bias ? w(o) : nullptr; };
        return {w(p.q_weight), b(p.q_bias), w(p.k_weight),   b(p.k_bias),
                w(p.v_weight), b(p.v_bias), w(p.out_weight), b(p.out_bias)};
    }
    MultiHeadAttentionGrads mha_g(const MultiHeadAttentionParams& p) {
        auto b = [&](size_t o) -> float* { return p.bias ? g(o) : nullptr; };
        return {g(p.q_weight), b(p.q_bias), g(p.k_weight),   b(p.k_bias),
                g(p.v_weight), b(p.v_bias), g(p.out_weight), b(p.out_bias)};
    }
    AttnMask source_mask() const {
        AttnMask mk;
        mk.valid_lens = src_valid;
        return mk;
    }
    AttnMask target_mask() const {
        AttnMask mk;
        mk.causal = true;
        mk.valid_lens = tgt_valid;
        return mk;
    }

    // transformer.cpp: embed
    void embed(float* out, Dropout* used, const int* ids, const float* table, int V, DropoutStream* dropout, int Bn,
               int Tn) {
        const int C = config.model_dim;
        embedding_forward_cuda(out, ids, table, std::sqrt(float(C)), Bn * Tn, C, V);
        positional_encoding_add_cuda(out, Bn, Tn, C, 0);
        *used = Dropout{};
        if (dropout) {
            const Dropout d = dropout->next(size_t(Bn) * Tn * C);
            *used = d;
            if (d.active()) dropout_forward_cuda(out, out, d, int64_t(Bn) * Tn * C);
        }
    }

    // encoder_block_forward
    void encoder_block_forward(EncActs& a, const float* x, const EncoderBlockParams& p, const AttnMask& mask,
                               DropoutStream* dropout) {
        const TransformerConfig& c = config;
        const int N = B * S, C = c.model_dim;
        const float eps = c.layernorm_eps;
        const float *n1w = w(p.norm1.weight), *n1b = w(p.norm1.bias), *n2w = w(p.norm2.weight), *n2b = w(p.norm2.bias);
        const float* in = add_norm_input(a.norm1, x, n1w, n1b, eps, N, C, c.pre_ln);
        mha_forward(a.attn_out, a.self_attn, in, in, mha_w(p.self_attn), mask, B, S, S, C, c.heads,
                    dropout ? dropout->next(size_t(B) * c.heads * S * S) : Dropout{});
        add_norm_forward(a.mid, a.norm1, x, a.attn_out, n1w, n1b, dropout ? dropout->next(size_t(N) * C) : Dropout{},
                         eps, N, C, c.pre_ln);
        in = add_norm_input(a.norm2, a.mid, n2w, n2b, eps, N, C, c.pre_ln);
        ffn_forward(a.ffn_out, a.ffn, in, w(p.ffn.w1), w(p.ffn.b1), w(p.ffn.w2), w(p.ffn.b2), c.activation, N, C,
                    c.ffn_dim);
        add_norm_forward(a.out, a.norm2, a.mid, a.ffn_out, n2w, n2b, dropout ? dropout->next(size_t(N) * C) : Dropout{},
                         eps, N, C, c.pre_ln);
    }

    // decoder_block_forward
    void decoder_block_forward(DecActs& a, const float* x, const DecoderBlockParams& p, const AttnMask& self_mask,
                               const AttnMask& cross_mask, DropoutStream* dropout) {
        const TransformerConfig& c = config;
        const int N = B * T, C = c.model_dim;
        const float eps = c.layernorm_eps;
        auto next_dropout = [&] { return dropout ? dropout->next(size_t(N) * C) : Dropout{}; };
        const float* in = add_norm_input(a.norm1, x, w(p.norm1.weight), w(p.norm1.bias), eps, N, C, c.pre_ln);
        mha_forward(a.self_out, a.self_attn, in, in, mha_w(p.self_attn), self_mask, B, T, T, C, c.heads,
                    dropout ? dropout->next(size_t(B) * c.heads * T * T) : Dropout{});
        add_norm_forward(a.mid1, a.norm1, x, a.self_out, w(p.norm1.weight), w(p.norm1.bias), next_dropout(), eps, N, C,
                         c.pre_ln);
        in = add_norm_input(a.norm2, a.mid1, w(p.norm2.weight), w(p.norm2.bias), eps, N, C, c.pre_ln);
        mha_forward(a.cross_out, a.cross_attn, in, memory, mha_w(p.cross_attn), cross_mask, B, T, S, C, c.heads,
                    dropout ? dropout->next(size_t(B) * c.heads * T * S) : Dropout{});
        add_norm_forward(a.mid2, a.norm2, a.mid1, a.cross_out, w(p.norm2.weight), w(p.norm2.bias), next_dropout(), eps,
                         N, C, c.pre_ln);
        in = add_norm_input(a.norm3, a.mid2, w(p.norm3.weight), w(p.norm3.bias), eps, N, C, c.pre_ln);
        ffn_forward(a.ffn_out, a.ffn, in, w(p.ffn.w1), w(p.ffn.b1), w(p.ffn.w2), w(p.ffn.b2), c.activation, N, C,
                    c.ffn_dim);
        add_norm_forward(a.out, a.norm3, a.mid2, a.ffn_out, w(p.norm3.weight), w(p.norm3.bias), next_dropout(), eps, N,
                         C, c.pre_ln);
    }

    // plan_transformer + transformer_forward. The arena is rewound: the previous step's activations are gone.
    void forward(const TransformerBatchView& b, DropoutStream* dropout) {
        const TransformerConfig& c = config;
        if (b.B <= 0) throw Error("transformer (cuda): batch size " + std::to_string(b.B) + ", expected > 0");
        if (b.S <= 0 || b.S > c.max_len)
            throw Error("transformer (cuda): source length " + std::to_string(b.S) + ", expected 1.." +
                        std::to_string(c.max_len));
        if (b.T <= 0 || b.T > c.max_len)
            throw Error("transformer (cuda): target length " + std::to_string(b.T) + ", expected 1.." +
                        std::to_string(c.max_len));
        check_ids(b.src, size_t(b.B) * b.S, c.src_vocab, "source");
        check_ids(b.tgt_in, size_t(b.B) * b.T, c.tgt_vocab, "target");
        if (b.tgt_out) check_labels(b.tgt_out, size_t(b.B) * b.T, c.tgt_vocab, c.pad_id);
        check_lens(b.src_valid, b.B, b.S, "source");
        check_lens(b.tgt_valid, b.B, b.T, "target");
        B = b.B;
        S = b.S;
        T = b.T;
        const int C = c.model_dim;
        arena.release(0);
        {
            const int* parts[] = {b.src, b.tgt_in, b.tgt_out, b.src_valid, b.tgt_valid};
            const size_t sizes[] = {size_t(B) * S, size_t(B) * T, size_t(B) * T, size_t(B), size_t(B)};
            int** out[] = {&src, &tgt_in, &tgt_out, &src_valid, &tgt_valid};
            int* device[5];
            ids.upload(arena, parts, sizes, device, 5);
            for (int i = 0; i < 5; ++i) *out[i] = device[i];
        }
        src_embedded = take(arena, size_t(B) * S * C, "source embedding");
        enc.clear();
        for (int i = 0; i < c.encoder_layers; ++i) enc.push_back(plan_encoder_block(arena, B, S, c));
        memory = take(arena, size_t(B) * S * C, "memory");
        enc_mean = take(arena, size_t(B) * S, "encoder norm mean");
        enc_rstd = take(arena, size_t(B) * S, "encoder norm rstd");
        tgt_embedded = take(arena, size_t(B) * T * C, "target embedding");
        dec.clear();
        for (int i = 0; i < c.decoder_layers; ++i) dec.push_back(plan_decoder_block(arena, B, T, S, c));
        decoded = take(arena, size_t(B) * T * C, "decoded");
        dec_mean = take(arena, size_t(B) * T, "decoder norm mean");
        dec_rstd = take(arena, size_t(B) * T, "decoder norm rstd");
        logits = take(arena, size_t(B) * T * c.tgt_vocab, "logits");

        // encode
        embed(src_embedded, &src_dropout, src, w(src_embedding), c.src_vocab, dropout, B, S);
        const AttnMask smask = source_mask();
        const float* x = src_embedded;
        for (int i = 0; i < c.encoder_layers; ++i) {
            encoder_block_forward(enc[i], x, encoder[i], smask, dropout);
            x = enc[i].out;
        }
        if (c.final_norm)
            layernorm_forward_cuda(memory, enc_mean, enc_rstd, x, w(encoder_norm.weight), w(encoder_norm.bias),
                                   c.layernorm_eps, B * S, C);
        else
            copy_device(memory, x, size_t(B) * S * C);
        // decode
        embed(tgt_embedded, &tgt_dropout, tgt_in, w(tgt_embedding), c.tgt_vocab, dropout, B, T);
        const AttnMask self_mask = target_mask();
        x = tgt_embedded;
        for (int i = 0; i < c.decoder_layers; ++i) {
            decoder_block_forward(dec[i], x, decoder[i], self_mask, smask, dropout);
            x = dec[i].out;
        }
        if (c.final_norm)
            layernorm_forward_cuda(decoded, dec_mean, dec_rstd, x, w(decoder_norm.weight), w(decoder_norm.bias),
                                   c.layernorm_eps, B * T, C);
        else
            copy_device(decoded, x, size_t(B) * T * C);
        linear_forward_cuda(logits, decoded, w(output_weight), w(output_bias), B * T, C, c.tgt_vocab);
    }

    // encoder_block_backward
    void encoder_block_backward(float* dx, const float* dout, const EncActs& a, const float* x,
                                const EncoderBlockParams& p, const AttnMask& mask) {
        const TransformerConfig& c = config;
        const int N = B * S, C = c.model_dim;
        const size_t nn = size_t(N) * C, mark = arena.mark();
        float* dmid = take_zero(arena, nn, "encoder backward dmid");
        float* dsub = take_zero(arena, nn, "encoder backward dsub");
        float* din = take_zero(arena, nn, "encoder backward din");
        add_norm_backward(arena, dmid, dsub, g(p.norm2.weight), g(p.norm2.bias), dout, a.norm2, w(p.norm2.weight), N, C,
                          c.pre_ln);
        const float* in2 = c.pre_ln ? a.norm2.normed : a.mid;
        ffn_backward(arena, din, g(p.ffn.w1), g(p.ffn.b1), g(p.ffn.w2), g(p.ffn.b2), dsub, a.ffn, in2, w(p.ffn.w1),
                     w(p.ffn.w2), c.activation, N, C, c.ffn_dim);
        add_norm_input_backward(dmid, g(p.norm2.weight), g(p.norm2.bias), din, a.norm2, a.mid, w(p.norm2.weight), N, C,
                                c.pre_ln);
        zero_device(dsub, nn);
        zero_device(din, nn);
        add_norm_backward(arena, dx, dsub, g(p.norm1.weight), g(p.norm1.bias), dmid, a.norm1, w(p.norm1.weight), N, C,
                          c.pre_ln);
        const float* in1 = c.pre_ln ? a.norm1.normed : x;
        mha_backward(arena, din, din, mha_g(p.self_attn), dsub, a.self_attn, in1, in1, mha_w(p.self_attn), mask, B, S,
                     S, C, c.heads);
        add_norm_input_backward(dx, g(p.norm1.weight), g(p.norm1.bias), din, a.norm1, x, w(p.norm1.weight), N, C,
                                c.pre_ln);
        arena.release(mark);
    }

    // decoder_block_backward
    void decoder_block_backward(float* dx, float* dmemory, const float* dout, const DecActs& a, const float* x,
                                const DecoderBlockParams& p, const AttnMask& self_mask, const AttnMask& cross_mask) {
        const TransformerConfig& c = config;
        const int N = B * T, C = c.model_dim;
        const size_t nn = size_t(N) * C, mark = arena.mark();
        float* dmid2 = take_zero(arena, nn, "decoder backward dmid2");
        float* dmid1 = take_zero(arena, nn, "decoder backward dmid1");
        float* dsub = take_zero(arena, nn, "decoder backward dsub");
        float* din = take_zero(arena, nn, "decoder backward din");
        auto clear = [&] {
            zero_device(dsub, nn);
            zero_device(din, nn);
        };
        add_norm_backward(arena, dmid2, dsub, g(p.norm3.weight), g(p.norm3.bias), dout, a.norm3, w(p.norm3.weight), N,
                          C, c.pre_ln);
        const float* in3 = c.pre_ln ? a.norm3.normed : a.mid2;
        ffn_backward(arena, din, g(p.ffn.w1), g(p.ffn.b1), g(p.ffn.w2), g(p.ffn.b2), dsub, a.ffn, in3, w(p.ffn.w1),
                     w(p.ffn.w2), c.activation, N, C, c.ffn_dim);
        add_norm_input_backward(dmid2, g(p.norm3.weight), g(p.norm3.bias), din, a.norm3, a.mid2, w(p.norm3.weight), N,
                                C, c.pre_ln);
        clear();
        add_norm_backward(arena, dmid1, dsub, g(p.norm2.weight), g(p.norm2.bias), dmid2, a.norm2, w(p.norm2.weight), N,
                          C, c.pre_ln);
        const float* in2 = c.pre_ln ? a.norm2.normed : a.mid1;
        mha_backward(arena, din, dmemory, mha_g(p.cross_attn), dsub, a.cross_attn, in2, memory, mha_w(p.cross_attn),
                     cross_mask, B, T, S, C, c.heads);
        add_norm_input_backward(dmid1, g(p.norm2.weight), g(p.norm2.bias), din, a.norm2, a.mid1, w(p.norm2.weight), N,
                                C, c.pre_ln);
        clear();
        add_norm_backward(arena, dx, dsub, g(p.norm1.weight), g(p.norm1.bias), dmid1, a.norm1, w(p.norm1.weight), N, C,
                          c.pre_ln);
        const float* in1 = c.pre_ln ? a.norm1.normed : x;
        mha_backward(arena, din, din, mha_g(p.self_attn), dsub, a.self_attn, in1, in1, mha_w(p.self_attn), self_mask,
                     B, T, T, C, c.heads);
        add_norm_input_backward(dx, g(p.norm1.weight), g(p.norm1.bias), din, a.norm1, x, w(p.norm1.weight), N, C,
                                c.pre_ln);
        arena.release(mark);
    }

    // transformer_backward.cpp: embed_backward
    void embed_backward(float* dtable, const float* dembedded, const Dropout& dropout, const int* ids, int V, int N) {
        const int C = config.model_dim;
        const size_t mark = arena.mark();
        const float* d = dembedded;
        if (dropout.active()) {
            float* undropped = take_zero(arena, size_t(N) * C, "embedding backward undropped");
            dropout_backward_cuda(undropped, dembedded, dropout, int64_t(N) * C);
            d = undropped;
        }
        embedding_backward_cuda(dtable, d, ids, std::sqrt(float(C)), config.pad_id, N, C, V);
        arena.release(mark);
    }

    // transformer_backward
    void backward(const float* dlogits) {
        const TransformerConfig& c = config;
        const int C = c.model_dim;
        const size_t nt = size_t(B) * T * C, ns = size_t(B) * S * C, mark = arena.mark();
        float* ddecoded = take_zero(arena, nt, "backward ddecoded");
        float* dx = take_zero(arena, nt, "backward dx");
        float* dprev = take(arena, nt, "backward dprev");
        float* dmemory = take_zero(arena, ns, "backward dmemory");
        linear_backward_cuda(ddecoded, g(output_weight), g(output_bias), dlogits, decoded, w(output_weight), B * T, C,
                             c.tgt_vocab);
        const float* last_decoder_out = c.decoder_layers ? dec.back().out : tgt_embedded;
        if (c.final_norm)
            layernorm_backward_cuda(dx, g(decoder_norm.weight), g(decoder_norm.bias), ddecoded, last_decoder_out,
                                    dec_mean, dec_rstd, w(decoder_norm.weight), B * T, C);
        else
            std::swap(dx, ddecoded);
        const AttnMask self_mask = target_mask(), cross_mask = source_mask();
        for (int i = c.decoder_layers - 1; i >= 0; --i) {
            const float* x = i ? dec[i - 1].out : tgt_embedded;
            zero_device(dprev, nt);
            decoder_block_backward(dprev, dmemory, dx, dec[i], x, decoder[i], self_mask, cross_mask);
            std::swap(dx, dprev);
        }
        embed_backward(g(tgt_embedding), dx, tgt_dropout, tgt_in, c.tgt_vocab, B * T);
        float* ds = take_zero(arena, ns, "backward ds");
        float* dsprev = take(arena, ns, "backward dsprev");
        const float* last_encoder_out = c.encoder_layers ? enc.back().out : src_embedded;
        if (c.final_norm)
            layernorm_backward_cuda(ds, g(encoder_norm.weight), g(encoder_norm.bias), dmemory, last_encoder_out,
                                    enc_mean, enc_rstd, w(encoder_norm.weight), B * S, C);
        else
            std::swap(ds, dmemory);
        for (int i = c.encoder_layers - 1; i >= 0; --i) {
            const float* x = i ? enc[i - 1].out : src_embedded;
            zero_device(dsprev, ns);
            encoder_block_backward(dsprev, ds, enc[i], x, encoder[i], cross_mask);
            std::swap(ds, dsprev);
        }
        embed_backward(g(src_embedding), ds, src_dropout, src, c.src_vocab, B * S);
        arena.release(mark);
    }

    int label_count(const TransformerBatchView& b) const {
        int count = 0;
        for (int i = 0; i < B * T; ++i) count += b.tgt_out[i] != config.pad_id;
        return count;
    }

    // Loss of the last forward (sum of row losses into scalars[0]); returns the label count. With `dlogits`, also
    // the gradient of the loss / divisor: the count, or `denominator` when > 0 (a data-parallel share: the whole
    // batch's labels). `in_place`: the logits themselves become that gradient (cross_entropy_fused_cuda), which
    // spares the two [N, V] buffers of the softmax and the gradient; dlogits must then be null.
    int loss(const TransformerBatchView& b, float label_smoothing, float* dlogits, int64_t denominator = 0,
             bool in_place = false) {
        const int N = B * T, V = config.tgt_vocab;
        const int count = label_count(b);
        const float scale = 1.0f / static_cast<float>(denominator > 0 ? denominator : std::max(1, count));
        float* losses = take(arena, N, "row losses");
        if (in_place) {
            cross_entropy_fused_cuda(losses, scalars.get(), logits, tgt_out, config.pad_id, label_smoothing, scale, N,
                                     V);
            return count;
        }
        float* probs = take(arena, size_t(N) * V, "loss probabilities");
        cross_entropy_forward_cuda(losses, probs, scalars.get(), logits, tgt_out, config.pad_id, label_smoothing, N,
                                   V);
        if (dlogits)
            cross_entropy_backward_cuda(dlogits, nullptr, scale, probs, tgt_out, config.pad_id, label_smoothing, N, V);
        return count;
    }

    double loss_total() const {
        double total = 0;
        copy_to_host(&total, scalars.get(), 1);
        return total;
    }

    // Returns the loss sum over `denominator` labels (0: this batch's own count).
    // in_place: the classifier's gradient overwrites the logits (the training step, which reads them no more).
    double forward_backward(const TransformerBatchView& b, DropoutStream* dropout, float label_smoothing,
                            int64_t denominator = 0, bool in_place = false) {
        if (!b.tgt_out) throw Error("transformer (cuda): a training step needs labels (tgt_out)");
        forward(b, dropout);
        const size_t N = size_t(B) * T;
        grads.zero();
        float* dlogits = in_place ? logits : take_zero(arena, N * config.tgt_vocab, "dlogits");
        const int count = loss(b, label_smoothing, in_place ? nullptr : dlogits, denominator, in_place);
        backward(dlogits);
        return loss_total() / double(denominator > 0 ? denominator : std::max<int64_t>(1, count));
    }
};

TransformerCuda::TransformerCuda(const Transformer& model, const AdamConfig& adam, size_t arena_bytes)
    : impl_(std::make_unique<Impl>(model, adam, arena_bytes)) {}

TransformerCuda::~TransformerCuda() = default;

double TransformerCuda::train_step(const TrainBatch& batch, uint64_t dropout_seed, float label_smoothing,
                                   float clip_norm, float lr, DeviceAllreduce* allreduce) {
    Impl& m = *impl_;
    DropoutStream dropout(m.config.dropout, dropout_seed);
    const bool share = batch.total_rows > 0;
    if (share && batch.B > 0) dropout.set_rows(batch.row_begin, batch.B, batch.total_rows);
    double loss = 0;
    if (batch.B > 0)
        loss = m.forward_backward(view_of(batch), &dropout, label_smoothing, share ? batch.global_labels : 0,
                                  /*in_place=*/true);
    else
        m.grads.zero();  // a share without rows adds nothing to the sum
    if (allreduce) allreduce->sum(m.grads.get(), m.n);
    if (clip_norm > 0) clip_grad_norm_cuda(m.scalars.get() + 1, m.grads.get(), m.n, clip_norm, m.partials.get());
    ++m.adam_t;
    adam_update_cuda(m.values.get(), m.m.get(), m.v.get(), m.grads.get(), m.n, m.adam_t, lr, m.adam);
    return loss;
}

double TransformerCuda::forward_backward(const TrainBatch& batch, bool dropout, uint64_t dropout_seed,
                                         float label_smoothing) {
    DropoutStream stream(impl_->config.dropout, dropout_seed);
    return impl_->forward_backward(view_of(batch), dropout ? &stream : nullptr, label_smoothing);
}

double TransformerCuda::loss_sum(const TrainBatch& batch, float label_smoothing, int* count) {
    const TransformerBatchView view = view_of(batch);
    if (!view.tgt_out) throw Error("transformer (cuda): loss_sum needs labels (tgt_out)");
    impl_->forward(view, nullptr);
    const int c = impl_->loss(view, label_smoothing, nullptr);
    if (count) *count = c;
    return impl_->loss_total();
}

void TransformerCuda::upload_params(const ParameterStore& store) {
    if (store.size() != impl_->n)
        throw Error("TransformerCuda::upload_params: the store holds " + std::to_string(store.size()) +
                    " floats, the model " + std::to_string(impl_->n));
    impl_->values.upload(store.values(), impl_->n);
}

void TransformerCuda::download_params(ParameterStore& store) const {
    if (store.size() != impl_->n)
        throw Error("TransformerCuda::download_params: the store holds " + std::to_string(store.size()) +
                    " floats, the model " + std::to_string(impl_->n));
    impl_->values.download(store.values(), impl_->n);
}

void TransformerCuda::download_grads(ParameterStore& store) const {
    if (store.size() != impl_->n || !store.has_grads())
        throw Error("TransformerCuda::download_grads: the store must have the model's layout and gradients");
    impl_->grads.download(store.grads(), impl_->n);
}

std::vector<float> TransformerCuda::download_logits() const {
    const Impl& m = *impl_;
    std::vector<float> out(size_t(m.B) * m.T * m.config.tgt_vocab);
    if (m.logits) copy_to_host(out.data(), m.logits, out.size());
    return out;
}

void TransformerCuda::set_adam_state(const std::vector<float>& mh, const std::vector<float>& vh, int64_t steps) {
    if (mh.size() != impl_->n || vh.size() != impl_->n)
        throw Error("TransformerCuda::set_adam_state: moments of " + std::to_string(mh.size()) + " / " +
                    std::to_string(vh.size()) + " floats, expected " + std::to_string(impl_->n));
    impl_->m.upload(mh);
    impl_->v.upload(vh);
    impl_->adam_t = steps;
}

void TransformerCuda::download_adam_state(std::vector<float>& mh, std::vector<float>& vh) const {
    impl_->m.download(mh);
    impl_->v.download(vh);
}

int64_t TransformerCuda::adam_steps() const { return impl_->adam_t; }
size_t TransformerCuda::arena_high_water() const { return impl_->arena.high_water(); }

}  // namespace attend::cuda
