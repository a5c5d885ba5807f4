// Backward (BPTT) of core/model/rnn_tanh.h. Every gradient accumulates (+=); null gradient pointers are skipped.
#pragma once

namespace attend {

// A whole sequence, after rnn_tanh_forward with the same arguments. dx [T, B, I] or null, dh0 [B, H] or null,
// dw_ih [H, I], db_ih [H], dw_hh [H, H], db_hh [H]; dout [T, B, H] gradient of out (null = zeros), dh_n [B, H]
// gradient of the final state (null = zeros); out as rnn_tanh_forward left it.
void rnn_tanh_backward(float* dx, float* dh0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh,
                       const float* dout, const float* dh_n, const float* x, const float* h0, const float* out,
                       const float* w_ih, const float* w_hh, int T, int B, int I, int H, bool reverse);

}  // namespace attend
