// Backward (BPTT) of core/model/lstm.h. Every gradient accumulates (+=); null gradient pointers are skipped.
#pragma once

namespace attend {

// One step. dgates [B, 4H] += gradient of the step's x W_ih^T + b_ih; dh_prev, dc_prev [B, H] or null;
// dw_hh [4H, H], db_hh [4H]; dh [B, H] gradient of h, dc [B, H] gradient reaching c from later steps (or null);
// gates, c (this step's cell), c_prev and h_prev (null = zeros) as lstm_cell_forward used or left them.
void lstm_cell_backward(float* dgates, float* dh_prev, float* dc_prev, float* dw_hh, float* db_hh, const float* dh,
                        const float* dc, const float* gates, const float* c, const float* c_prev, const float* h_prev,
                        const float* w_hh, int B, int H);

// A whole sequence, after lstm_forward with the same arguments. dx [T, B, I], dh0, dc0 [B, H] (each may be
// null); dout [T, B, H] (null = zeros); dh_n, dc_n [B, H] gradients of the final states (null = zeros).
void lstm_backward(float* dx, float* dh0, float* dc0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh,
                   const float* dout, const float* dh_n, const float* dc_n, const float* x, const float* h0,
                   const float* c0, const float* out, const float* cells, const float* gates, const float* w_ih,
                   const float* w_hh, int T, int B, int I, int H, bool reverse);

}  // namespace attend
