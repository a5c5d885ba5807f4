#include "model/transformer.h"

#include "error.h"
#include "io/safetensors.h"  // float_to_half, half_to_float
#include "kernels/activations.h"
#include "kernels/embedding.h"
#include "kernels/layernorm.h"
#include "kernels/linear_rows.h"
#include "kernels/positional_encoding.h"
#include "model/cpu_ops.h"
#include "model/gather_rows.h"
#include "model/transformer_forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace attend {

namespace {

// Declares every parameter of a Transformer with config c into t.params, in file order, and records the offsets
// in t; nothing is allocated.
void declare_transformer(Transformer& t, const TransformerConfig& c) {
    c.validate();
    ParameterStore& params = t.params;
    const int C = c.model_dim;
    if (c.tie_embeddings) {
        t.src_embedding = t.tgt_embedding = t.output_weight = params.declare("embedding.weight", {c.src_vocab, C});
    } else {
        t.src_embedding = params.declare("src_embedding.weight", {c.src_vocab, C});
        t.tgt_embedding = params.declare("tgt_embedding.weight", {c.tgt_vocab, C});
    }
    for (int i = 0; i < c.encoder_layers; ++i)
        t.encoder.push_back(declare_encoder_block(params, "encoder.layers." + std::to_string(i) + ".", c));
    if (c.final_norm) t.encoder_norm = declare_add_norm(params, "encoder.norm", C);
    for (int i = 0; i < c.decoder_layers; ++i)
        t.decoder.push_back(declare_decoder_block(params, "decoder.layers." + std::to_string(i) + ".", c));
    if (c.final_norm) t.decoder_norm = declare_add_norm(params, "decoder.norm", C);
    if (!c.tie_embeddings) t.output_weight = params.declare("output.weight", {c.tgt_vocab, C});
    t.output_bias = params.declare("output.bias", {c.tgt_vocab});
}

}  // namespace

Transformer::Transformer(const TransformerConfig& c, bool with_grads, bool allocate) {
    config = c;
    declare_transformer(*this, config);
    if (!allocate) return;
    const int C = c.model_dim;
    params.allocate(with_grads);
    for (auto& e : encoder) {
        set_layernorm_identity(params, e.norm1, C);
        set_layernorm_identity(params, e.norm2, C);
    }
    for (auto& d : decoder) {
        set_layernorm_identity(params, d.norm1, C);
        set_layernorm_identity(params, d.norm2, C);
        set_layernorm_identity(params, d.norm3, C);
    }
    if (c.final_norm) {
        set_layernorm_identity(params, encoder_norm, C);
        set_layernorm_identity(params, decoder_norm, C);
    }
}

ParameterStore transformer_parameter_layout(const TransformerConfig& config) {
    return Transformer(config, false, /*allocate=*/false).params;
}

AttnMask TransformerActivations::source_mask() const {
    AttnMask m;
    if (!src_valid_lens.empty()) m.valid_lens = src_valid_lens.data();
    return m;
}

AttnMask TransformerActivations::target_mask() const {
    AttnMask m;
    m.causal = true;
    if (!tgt_valid_lens.empty()) m.valid_lens = tgt_valid_lens.data();
    return m;
}

namespace {

void check_lengths(const TransformerConfig& c, int B, int S, int T) {
    if (B <= 0) throw Error("transformer: batch size " + std::to_string(B) + ", expected > 0");
    if (S <= 0 || S > c.max_len)
        throw Error("transformer: source length " + std::to_string(S) + ", expected 1.." + std::to_string(c.max_len));
    if (T < 0 || T > c.max_len)
        throw Error("transformer: target length " + std::to_string(T) + ", expected 0.." + std::to_string(c.max_len));
}

std::vector<int> copy_valid_lens(const int* lens, int B, int T, const char* what) {
    if (!lens) return {};
    for (int b = 0; b < B; ++b)
        if (lens[b] < 0 || lens[b] > T)
            throw Error(std::string("transformer: ") + what + " valid length " + std::to_string(lens[b]) +
                        " of batch row " + std::to_string(b) + ", expected 0.." + std::to_string(T));
    return std::vector<int>(lens, lens + B);
}

}  // namespace

void plan_transformer(TransformerActivations& a, const TransformerConfig& c, int B, int S, int T, bool keep_weights) {
    check_lengths(c, B, S, T);
    a.B = B;
    a.S = S;
    a.T = T;
    a.arena.reset_counting();
    plan_transformer_tensors(a, a.arena, c, keep_weights);
    a.arena.allocate_counted();
    plan_transformer_tensors(a, a.arena, c, keep_weights);
}

void transformer_begin_forward(TransformerActivations& a, const int* src_valid_lens, const int* tgt_valid_lens) {
    if (!a.logits) throw Error("transformer_forward: activations not planned (call plan_transformer first)");
    a.src_valid_lens = copy_valid_lens(src_valid_lens, a.B, a.S, "source");
    a.tgt_valid_lens = copy_valid_lens(tgt_valid_lens, a.B, a.T, "target");
}

void transformer_forward(TransformerActivations& a, const Transformer& m, const int* src, const int* src_valid_lens,
                         const int* tgt, const int* tgt_valid_lens, DropoutStream* dropout) {
    transformer_begin_forward(a, src_valid_lens, tgt_valid_lens);
    CpuOps ops{a.scratch};
    transformer_forward(ops, a, m, m.params.values(), src, tgt, a.source_mask(), a.target_mask(), dropout);
}

void transformer_prepare_decoding(Transformer& m) {
    m.decode_f16.clear();
    if (!linear_rows_f16_fast()) return;
    const TransformerConfig& c = m.config;
    const size_t CC = size_t(c.model_dim) * c.model_dim, FC = size_t(c.ffn_dim) * c.model_dim;
    std::vector<std::pair<size_t, size_t>> matrices{{m.output_weight, size_t(c.tgt_vocab) * c.model_dim}};  // offset, size
    for (const DecoderBlockParams& d : m.decoder)
        for (auto matrix : {std::pair{d.self_attn.q_weight, CC}, {d.self_attn.k_weight, CC}, {d.self_attn.v_weight, CC},
                            {d.self_attn.out_weight, CC}, {d.cross_attn.q_weight, CC}, {d.cross_attn.out_weight, CC},
                            {d.ffn.w1, FC}, {d.ffn.w2, FC}})
            matrices.push_back(matrix);
    std::vector<uint16_t> f16(m.params.size(), 0);
    for (auto [offset, size] : matrices) {
        const float* w = m.params.value_at(offset);
        for (size_t i = 0; i < size; ++i) {
            const uint16_t h = float_to_half(w[i]);
            const float back = half_to_float(h);
            if (std::memcmp(&back, w + i, sizeof(float)) != 0) return;  // not an F16 model: keep reading floats
            f16[offset + i] = h;
        }
    }
    m.decode_f16.swap(f16);
}

void transformer_start_decoding(TransformerDecodingState& st, const Transformer& m, const int* src,
                                const int* src_valid_lens, int B, int S, int capacity) {
    const TransformerConfig& c = m.config;
    if (capacity <= 0 || capacity > c.max_len)
        throw Error("transformer: decoding capacity " + std::to_string(capacity) + ", expected 1.." +
                    std::to_string(c.max_len));
    check_lengths(c, B, S, 0);
    // Decoding needs only the encoder's output: two layers' activations, used in turn, serve every layer, where a
    // training plan keeps every layer's intermediates (several times the memory of a batch). The same ops in the
    // same order as transformer_encode: the same memory, bit for bit.
    const int C = c.model_dim;
    const float* values = m.params.values();
    Arena arena;
    float *embedded = nullptr, *mean = nullptr, *rstd = nullptr;
    EncoderBlockActivations blocks[2];
    arena.plan([&] {
        embedded = arena.take(size_t(B) * S * C);
        blocks[0] = plan_encoder_block(arena, B, S, c, /*keep_weights=*/false);
        blocks[1] = plan_encoder_block(arena, B, S, c, /*keep_weights=*/false);
        mean = arena.take(size_t(B) * S);
        rstd = arena.take(size_t(B) * S);
    });
    st.src_valid_lens = copy_valid_lens(src_valid_lens, B, S, "source");
    AttnMask mask;
    if (!st.src_valid_lens.empty()) mask.valid_lens = st.src_valid_lens.data();
    ScratchArena scratch;
    CpuOps ops{scratch};
    Dropout no_dropout;
    transformer_embed(ops, embedded, no_dropout, src, values + m.src_embedding, c.src_vocab, nullptr, B, S, C);
    const float* x = embedded;
    for (int i = 0; i < c.encoder_layers; ++i) {
        EncoderBlockActivations& block = blocks[i % 2];
        encoder_block_forward(ops, block, x, values, m.encoder[i], mask, nullptr, B, S, c);
        x = block.out;
    }
    st.memory.resize(size_t(B) * S * C);
    transformer_final_norm(ops, st.memory.data(), mean, rstd, x, values, m.encoder_norm, c, B * S);
    st.B = B;
    st.S = S;
    st.capacity = capacity;
    st.memory_rows = B;
    st.steps = 0;
    st.layers.resize(c.decoder_layers);
    for (int i = 0; i < c.decoder_layers; ++i)
        decoder_block_cache_init(st.layers[i], st.memory.data(), m.params, m.decoder[i], B, S, capacity, c);
    st.positions.resize(size_t(capacity) * c.model_dim);
    positional_encoding_table(st.positions.data(), capacity, c.model_dim);
    st.x.resize(size_t(B) * c.model_dim);
    st.y.resize(size_t(B) * c.model_dim);
}

void transformer_decode_step(float* logits, TransformerDecodingState& st, const Transformer& m, const int* tokens) {
    const TransformerConfig& c = m.config;
    const int B = st.B, C = c.model_dim, t = st.steps;
    if (t >= st.capacity)
        throw Error("decoder step " + std::to_string(t + 1) + " exceeds the key/value cache capacity " +
                    std::to_string(st.capacity));
    const ParameterStore& s = m.params;
    float* x = st.x.data();
    float* y = st.y.data();
    // x [B,C] = table[tokens] * sqrt(C) + P[t] (no dropout at inference)
    embedding_forward(x, tokens, s.value_at(m.tgt_embedding), std::sqrt(float(C)), B, C, c.tgt_vocab);
    for (int b = 0; b < B; ++b) residual_forward(x + size_t(b) * C, x + size_t(b) * C, st.positions.data() + size_t(t) * C, C);
    AttnMask cross_mask;
    if (!st.src_valid_lens.empty()) cross_mask.valid_lens = st.src_valid_lens.data();
    for (int i = 0; i < c.decoder_layers; ++i) {
        decoder_block_step(y, st.layers[i], x, s, m.decoder[i], cross_mask, B, c,
                           m.decode_f16.empty() ? nullptr : m.decode_f16.data());
        std::swap(x, y);
    }
    ++st.steps;
    if (c.final_norm)
        layernorm_forward(x, nullptr, nullptr, x, s.value_at(m.decoder_norm.weight), s.value_at(m.decoder_norm.bias),
                          c.layernorm_eps, B, C);
    if (!m.decode_f16.empty())
        linear_rows_forward_f16(logits, x, m.decode_f16.data() + m.output_weight, s.value_at(m.output_bias), B, C,
                                c.tgt_vocab);
    else
        linear_rows_forward(logits, x, s.value_at(m.output_weight), s.value_at(m.output_bias), B, C, c.tgt_vocab);
}

void transformer_decoding_select(TransformerDecodingState& st, const Transformer& m, const int* parents, int n) {
    const TransformerConfig& c = m.config;
    for (int i = 0; i < n; ++i)
        if (parents[i] < 0 || parents[i] >= st.B)
            throw Error("transformer: parent " + std::to_string(parents[i]) + " outside 0.." + std::to_string(st.B - 1));
    if (st.memory_rows > 1) {  // one source per row: the memory follows its rows (one shared memory stays)
        gather_rows(st.memory, size_t(st.S) * c.model_dim, parents, n);
        gather_rows(st.src_valid_lens, 1, parents, n);
        st.memory_rows = n;
    }
    for (DecoderBlockCache& cache : st.layers) decoder_block_cache_select(cache, parents, n, c);
    st.B = n;
    if (st.x.size() < size_t(n) * c.model_dim) {
        st.x.resize(size_t(n) * c.model_dim);
        st.y.resize(size_t(n) * c.model_dim);
    }
}

}  // namespace attend
