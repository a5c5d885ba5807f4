// Backward (BPTT through every step) of Seq2SeqAttentionDecoder::forward (core/model/seq2seq_attention_decoder.h).
// Parameter gradients accumulate in the store; denc_outputs and dhidden accumulate too (each may be null).
#pragma once

namespace attend {

class Seq2SeqAttentionDecoder;

// doutput [B, T, V] gradient of the logits; dhidden_out [L, B, H] gradient of the returned state (null = zeros).
// denc_outputs [Tk, B, K] (time-major, like the encoder outputs it received), dhidden [L, B, H] (the initial state).
void seq2seq_attention_decoder_backward(Seq2SeqAttentionDecoder& decoder, float* denc_outputs, float* dhidden,
                                        const float* doutput, const float* dhidden_out);

// Backward of Seq2SeqAttentionDecoder::init_state (its last call): denc_state [L*D, B, H] accumulates the gradient
// of the encoder's final state from dhidden [L, B, H], that of the decoder's initial state; the bidirectional
// projection's parameter gradients accumulate in the store.
void seq2seq_attention_decoder_init_state_backward(Seq2SeqAttentionDecoder& decoder, float* denc_state,
                                                   const float* dhidden, int B);

}  // namespace attend
