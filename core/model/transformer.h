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

#include <vector>

namespace attend {

struct Transformer {
    // Declares and allocates every parameter: zeros, LayerNorm weights 1 (initialise or load afterwards).
    explicit Transformer(const TransformerConfig& config, bool with_grads = true);

    TransformerConfig config;
    ParameterStore params;
    size_t src_embedding = 0, tgt_embedding = 0, output_weight = 0, output_bias = 0;
    std::vector<EncoderBlockParams> encoder;
    std::vector<DecoderBlockParams> decoder;
    AddNormParams encoder_norm, decoder_norm;  // meaningful only with config.final_norm
};

// Everything a forward pass keeps, in one arena, for batch B, source length S and target length T.
struct TransformerActivations {
    int B = 0, S = 0, T = 0;
    Arena arena;
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

// Incremental decoding: encode once, then one target token per sequence per step, with key/value caches.
struct TransformerDecodingState {
    int B = 0, S = 0;
    std::vector<float> memory;  // [B,S,C]
    std::vector<int> src_valid_lens;
    std::vector<DecoderBlockCache> layers;
    int steps() const { return layers.empty() ? steps_without_layers : layers[0].steps; }
    int steps_without_layers = 0;
};

// Runs the encoder on src [B,S] and prepares caches for up to `capacity` target steps.
void transformer_start_decoding(TransformerDecodingState& state, const Transformer& model, const int* src,
                                const int* src_valid_lens, int B, int S, int capacity);

// logits [B,V] for the next position given the tokens [B] at the current position.
void transformer_decode_step(float* logits, TransformerDecodingState& state, const Transformer& model,
                             const int* tokens);

}  // namespace attend
