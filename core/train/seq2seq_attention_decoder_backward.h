// Backward (BPTT through every step) of Seq2SeqAttentionDecoder::forward (core/model/seq2seq_attention_decoder.h).
// Parameter gradients accumulate in the store; denc_outputs and dhidden accumulate too (each may be null).
#pragma once

namespace attend {

class Seq2SeqAttentionDecoder;

// doutput [B, T, V] gradient of the logits; dhidden_out [L, B, H] gradient of the returned state (null = zeros).
// denc_outputs [Tk, B, H] (time-major, like the encoder outputs it received), dhidden [L, B, H] (the initial state).
void seq2seq_attention_decoder_backward(Seq2SeqAttentionDecoder& decoder, float* denc_outputs, float* dhidden,
                                        const float* doutput, const float* dhidden_out);

}  // namespace attend
