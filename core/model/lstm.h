// nn.LSTM, one layer and one direction, PyTorch gate layout (rows of weight_ih / weight_hh: i, f, g, o):
//   i = sigmoid(.), f = sigmoid(.), g = tanh(.), o = sigmoid(.)   each of W_i* x + b_i* + W_h* h + b_h*
//   c' = f * c + i * g,   h' = o * tanh(c')
// Sequences are time-major like nn.LSTM: x [T, B, I]. Multi-layer and bidirectional stacks are in rnn.h.
#pragma once

namespace attend {

// One time step. gates [B, 4H]: on entry x W_ih^T + b_ih, on return the activations i, f, g, o.
// h_prev, c_prev [B, H] (null = zeros); h, c [B, H] (may not alias the previous ones).
// w_hh [4H, H], b_hh [4H].
void lstm_cell_forward(float* h, float* c, float* gates, const float* h_prev, const float* c_prev,
                       const float* w_hh, const float* b_hh, int B, int H);

// A whole sequence (reverse as in gru_forward). out [T, B, H] hidden states, cells [T, B, H] cell states,
// gates [T, B, 4H] activations (both kept for lstm_backward). x [T, B, I], h0, c0 [B, H] or null (zeros),
// w_ih [4H, I], b_ih [4H], w_hh [4H, H], b_hh [4H].
void lstm_forward(float* out, float* cells, float* gates, const float* x, const float* h0, const float* c0,
                  const float* w_ih, const float* b_ih, const float* w_hh, const float* b_hh, int T, int B, int I,
                  int H, bool reverse);

}  // namespace attend
