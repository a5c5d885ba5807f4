// CUDA mirrors of gru_cell_forward (core/model/gru.h) and gru_cell_backward (core/train/gru_backward.h),
// PyTorch gate layout r, z, n. The hidden-to-hidden product goes to cuBLAS (linear_forward_cuda /
// linear_backward_cuda); the gate math is one element-wise kernel. Device pointers.
// hw is device scratch [B, 3H] (the CPU kernels allocate it as a std::vector; here the caller owns it, so a
// training step allocates nothing).
#pragma once
#include <cstddef>

namespace attend::cuda {

// gates [B,3H]: on entry x W_ih^T + b_ih, on return r, z, n. hh_n [B,H] receives W_hn h + b_hn. h_prev [B,H] or
// null (zeros); h [B,H] (not aliasing h_prev). w_hh [3H,H], b_hh [3H] (or null).
void gru_cell_forward_cuda(float* h, float* gates, float* hh_n, float* hw, const float* h_prev, const float* w_hh,
                           const float* b_hh, int B, int H);

// dgates [B,3H] += gradient of the step's x W_ih^T + b_ih; dh_prev [B,H] or null; dw_hh [3H,H], db_hh [3H] or
// null; dh [B,H]; gates, hh_n, h_prev (null = zeros) as the forward left them. All gradients accumulate.
void gru_cell_backward_cuda(float* dgates, float* dh_prev, float* dw_hh, float* db_hh, float* hw,
                            const float* dh, const float* gates, const float* hh_n, const float* h_prev,
                            const float* w_hh, int B, int H);

// A whole sequence (CPU: gru_forward / gru_backward), time-major. out [T,B,H]; gates [T,B,3H] and hh_n [T,B,H] keep
// the activations; x [T,B,I]; h0 [B,H] or null; w_ih [3H,I], b_ih [3H], w_hh [3H,H], b_hh [3H]; reverse reads
// t = T-1 .. 0. scratch: gru_forward_scratch(B, H) floats of device memory, or null to allocate inside the call.
size_t gru_forward_scratch(int B, int H);
void gru_forward_cuda(float* out, float* gates, float* hh_n, float* scratch, const float* x, const float* h0,
                      const float* w_ih, const float* b_ih, const float* w_hh, const float* b_hh, int T, int B, int I,
                      int H, bool reverse);

// dx [T,B,I] or null, dh0 [B,H] or null, dw_ih [3H,I], db_ih [3H], dw_hh [3H,H], db_hh [3H] (accumulate);
// dout [T,B,H] or null, dh_n [B,H] or null; the rest as gru_forward_cuda left it. scratch:
// gru_backward_scratch(T, B, H) floats, or null to allocate inside the call.
size_t gru_backward_scratch(int T, int B, int H);
void gru_backward_cuda(float* dx, float* dh0, float* dw_ih, float* db_ih, float* dw_hh, float* db_hh, float* scratch,
                       const float* dout, const float* dh_n, const float* x, const float* h0, const float* out,
                       const float* gates, const float* hh_n, const float* w_ih, const float* w_hh, int T, int B,
                       int I, int H, bool reverse);

}  // namespace attend::cuda
