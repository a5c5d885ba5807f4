// nn.GRU, one layer and one direction, PyTorch gate layout (rows of weight_ih / weight_hh: r, z, n):
//   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
//   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
//   h' = (1 - z) * n + z * h
// Sequences are time-major like nn.GRU: x [T, B, I]. Multi-layer and bidirectional stacks are in rnn.h.
#pragma once

namespace attend {

// One time step. gates [B, 3H]: on entry x W_ih^T + b_ih, on return the activations r, z, n (kept for the
// backward). hh_n [B, H] receives W_hn h + b_hn (also for the backward). h_prev [B, H] (null = zeros),
// h [B, H] (may not alias h_prev). w_hh [3H, H], b_hh [3H].
void gru_cell_forward(float* h, float* gates, float* hh_n, const float* h_prev, const float* w_hh,
                      const float* b_hh, int B, int H);

// A whole sequence. out [T, B, H]: the hidden state after each step; with reverse the sequence is read from
// t = T-1 down to 0 and out[t] is the state after reading x[t] (as PyTorch's reverse direction).
// gates [T, B, 3H] and hh_n [T, B, H] keep the activations for gru_backward. x [T, B, I], h0 [B, H] or null
// (zeros), w_ih [3H, I], b_ih [3H], w_hh [3H, H], b_hh [3H]. The final state is out[T-1] (out[0] if reverse).
void gru_forward(float* out, float* gates, float* hh_n, const float* x, const float* h0, const float* w_ih,
                 const float* b_ih, const float* w_hh, const float* b_hh, int T, int B, int I, int H, bool reverse);

}  // namespace attend
