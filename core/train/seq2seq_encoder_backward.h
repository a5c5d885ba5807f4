// Backward of Seq2SeqEncoder::forward (core/model/seq2seq_encoder.h); parameter gradients accumulate in the store.
#pragma once

namespace attend {

class Seq2SeqEncoder;

// doutputs [T, B, H] gradient of the time-major outputs (null = zeros), dstate [L, B, H] of the final state (or null).
void seq2seq_encoder_backward(Seq2SeqEncoder& encoder, const float* doutputs, const float* dstate);

}  // namespace attend
