// nn.RNN (nonlinearity 'tanh'), one layer and one direction:
//   h' = tanh(W_ih x + b_ih + W_hh h + b_hh)
// Sequences are time-major like nn.RNN: x [T, B, I]. Multi-layer and bidirectional stacks are in rnn.h.
#pragma once

namespace attend {

// One time step. pre [B, H]: on entry x W_ih^T + b_ih, unchanged. h_prev [B, H] (null = zeros), h [B, H] (may
// not alias h_prev). w_hh [H, H], b_hh [H].
void rnn_tanh_cell_forward(float* h, const float* pre, const float* h_prev, const float* w_hh, const float* b_hh,
                           int B, int H);

// A whole sequence (reverse as in gru_forward). out [T, B, H]: the hidden state after each step, all the backward
// needs (tanh' = 1 - h^2); proj [T, B, H] receives x W_ih^T + b_ih. x [T, B, I], h0 [B, H] or null (zeros),
// w_ih [H, I], b_ih [H], w_hh [H, H], b_hh [H].
void rnn_tanh_forward(float* out, float* proj, const float* x, const float* h0, const float* w_ih, const float* b_ih,
                      const float* w_hh, const float* b_hh, int T, int B, int I, int H, bool reverse);

}  // namespace attend
