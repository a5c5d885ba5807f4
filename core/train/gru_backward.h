// Backward (BPTT) of core/model/gru.h. Every gradient accumulates (+=); null gradient pointers are skipped.
#pragma once

namespace attend {

// One step. dgates [B, 3H] += gradient of the step's x W_ih^T + b_ih; dh_prev [B, H] or null; dw_hh [3H, H],
// db_hh [3H]; dh [B, H] total gradient of h; gates, hh_n, h_prev (null = zeros) as gru_cell_forward left them.
void gru_cell_backward(float* dgates, float* dh_prev, float* dw_hh, float* db_hh, const float* dh, const float* gates,
                       const float* hh_n, const float* h_prev, const float* w_hh, int B, int H);

// A whole sequence, after gru_forward with the same arguments. dx [T, B, I] or null, dh0 [B, H] or null,
// dw_ih [3H, I], db_ih [3H], dw_hh [3H, H], db_hh [3H]; dout [T, B, H] gradient of out (null = zeros),
// dh_n [B, H] gradient of the final state (null = zeros).
void gru_backward(float* dx, float* dh0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh, const float* dout,
                  const float* dh_n, const float* x, const float* h0, const float* out, const float* gates,
                  const float* hh_n, const float* w_ih, const float* w_hh, int T, int B, int I, int H, bool reverse);

}  // namespace attend
