// The Transformer encoder-decoder of the seeds: token embedding * sqrt(C) + sinusoidal positional encoding +
// dropout, N encoder blocks, N decoder blocks, an output projection to the target vocabulary; optionally a
// LayerNorm after each stack (nn.Transformer) and one embedding table shared by source, target and output
// projection (tie_embeddings, joint vocabulary).
//
// Tensor names: src_embedding.weight / tgt_embedding.weight (or embedding.weight when tied),
// encoder.layers.<i>.{self_attn.{q,k,v,out}_proj, linear1, linear2, norm1, norm2}.{weight,bias},
// decoder.layers.<i>.{self_attn.*, cross_attn.*, linear1, linear2, norm1, norm2, norm3}.{weight,bias},
// encoder.norm / decoder.norm (final_norm), output.weight [V,C] (absent when tied), output.bias [V].
#pragma once
#include "model/decoder_block.h"
#include "model/encoder_block.h"
#include "model/transformer_config.h"

#include <cstdint>
#include <vector>

namespace attend {

// Where each parameter lies in the ParameterStore's buffer: all the forward and backward passes need to find the
// weights in that buffer or in a device copy of it.
struct TransformerLayout {
    TransformerConfig config;
    size_t src_embedding = 0, tgt_embedding = 0, output_weight = 0, output_bias = 0;
    std::vector<EncoderBlockParams> encoder;
    std::vector<DecoderBlockParams> decoder;
    AddNormParams encoder_norm, decoder_norm;  // meaningful only with config.final_norm
};

struct Transformer : TransformerLayout {
    // Declares and allocates every parameter: zeros, LayerNorm weights 1 (initialise or load afterwards).
    // allocate false: only declared (params.specs() hold every name and shape; no values).
    explicit Transformer(const TransformerConfig& config, bool with_grads = true, bool allocate = true);

    ParameterStore params;
    // Half-float copy of the matrices a decoding step reads (decoder layers, output projection) at the offsets
    // they have in params, made by transformer_prepare_decoding; empty: decoding reads the float weights.
    std::vector<uint16_t> decode_f16;
};

// The parameters a config implies, declared but not allocated (names, shapes, file order): what a model file must
// hold, known before anything of its size is allocated. Throws attend::Error on an invalid config.
ParameterStore transformer_parameter_layout(const TransformerConfig& config);

// Decoding is bound by reading weights. When half floats convert cheaply (linear_rows_f16_fast) and every matrix a step
// reads is exactly a half float (an F16 model file), keeps the half-float copy that halves those reads; the
// logits are bit for bit the same. Otherwise clears it. Call again after changing the weights.
void transformer_prepare_decoding(Transformer& model);

// Everything a forward pass keeps for the backward, as pointers into an arena of the device it ran on.
struct TransformerTensors {
    int B = 0, S = 0, T = 0;
    float* src_embedded = nullptr;  // [B*S,C] after scale, positional encoding, dropout
    Dropout src_dropout;
    std::vector<EncoderBlockActivations> encoder;
    float* memory = nullptr;  // [B*S,C] encoder output (after encoder.norm when final_norm)
    float *encoder_norm_mean = nullptr, *encoder_norm_rstd = nullptr;  // [B*S]
    float* tgt_embedded = nullptr;                                     // [B*T,C]
    Dropout tgt_dropout;
    std::vector<DecoderBlockActivations> decoder;
    float* decoded = nullptr;  // [B*T,C] decoder output (after decoder.norm when final_norm)
    float *decoder_norm_mean = nullptr, *decoder_norm_rstd = nullptr;  // [B*T]
    float* logits = nullptr;                                           // [B*T,V]
};

// The host's: the tensors in one arena, for batch B, source length S and target length T.
struct TransformerActivations : TransformerTensors {
    Arena arena;
    // The passes' temporary buffers; kept here so that a training step reuses them. Mutable: the backward,
    // which only reads the activations, takes its gradient buffers from it.
    mutable ScratchArena scratch;
    // The masks the forward used (valid lengths are copied here so the backward sees the same ones).
    std::vector<int> src_valid_lens, tgt_valid_lens;
    AttnMask source_mask() const;  // encoder self-attention and encoder-decoder attention
    AttnMask target_mask() const;  // decoder self-attention: causal (+ target valid lengths)
};

// Sizes the arena for (B, S, T); keep_weights also stores every attention map (each layer, each head).
void plan_transformer(TransformerActivations& acts, const TransformerConfig& config, int B, int S, int T,
                      bool keep_weights = false);

// Teacher-forced forward: src [B,S], tgt [B,T] token ids; src_valid_lens / tgt_valid_lens [B] or nullptr (all
// valid). dropout: nullptr or an inactive stream for inference. Logits in acts.logits [B,T,V].
void transformer_forward(TransformerActivations& acts, const Transformer& model, const int* src,
                         const int* src_valid_lens, const int* tgt, const int* tgt_valid_lens,
                         DropoutStream* dropout = nullptr);

// transformer_forward's checks, and the valid lengths kept in acts, for a forward over other ops (the trainer's,
// core/train/transformer_backward.h): transformer_forward(ops, acts, model, ...) of model/transformer_forward.h
// follows it.
void transformer_begin_forward(TransformerActivations& acts, const int* src_valid_lens, const int* tgt_valid_lens);

// Incremental decoding: encode once, then one target token per sequence per step, with key/value caches. The
// buffers are sized when decoding starts (and when select() adds rows): a step allocates nothing.
struct TransformerDecodingState {
    int B = 0, S = 0, capacity = 0;
    int steps = 0;              // target positions decoded so far
    int memory_rows = 0;        // B, or 1: every row (beam hypothesis) decodes the same source
    std::vector<float> memory;  // [memory_rows,S,C]
    std::vector<int> src_valid_lens;  // [memory_rows] or empty (all valid)
    std::vector<DecoderBlockCache> layers;
    std::vector<float> positions;  // [capacity,C] positional encoding rows
    std::vector<float> x, y;       // [B,C] step activations
};

// Runs the encoder on src [B,S] and prepares caches for up to `capacity` target steps. The steps keep no attention
// weights: a teacher-forced transformer_forward over the result gives every map (plan_transformer's keep_weights).
void transformer_start_decoding(TransformerDecodingState& state, const Transformer& model, const int* src,
                                const int* src_valid_lens, int B, int S, int capacity);

// logits [B,V] for the next position given the tokens [B] at the current position.
void transformer_decode_step(float* logits, TransformerDecodingState& state, const Transformer& model,
                             const int* tokens);

// Row i of the next step continues row parents[i] of this one (parents [n], each in 0..B-1, may repeat).
void transformer_decoding_select(TransformerDecodingState& state, const Transformer& model, const int* parents, int n);

}  // namespace attend
