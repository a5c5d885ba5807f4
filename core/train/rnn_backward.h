// Backward of Rnn::forward (core/model/rnn.h) from the activations it saved. Parameter gradients accumulate
// into the store's gradient buffer; dx, dh0, dc0 accumulate too (each may be null).
#pragma once

namespace attend {

class Rnn;

// dout [T, B, D*H] gradient of out (null = zeros); dh_n, dc_n [L*D, B, H] gradients of the final states
// (null = zeros; dc_n LSTM only). dx [T, B, I]; dh0, dc0 [L*D, B, H].
void rnn_backward(Rnn& rnn, float* dx, float* dh0, float* dc0, const float* dout, const float* dh_n,
                  const float* dc_n);

}  // namespace attend
