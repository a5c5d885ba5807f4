// A fully connected layer for a few rows at a time (decoding: 1 row for greedy search, one per beam): every
// weight row is read once and used for all N input rows, so the cost is one pass over the weights however many
// rows there are. Matrix products over many rows (training, the encoder) stay with Eigen (model/linear.h).
#pragma once
#include <cstdint>

namespace attend {

// out [N,OC] = x [N,IC] weight^T + bias; weight [OC,IC] (PyTorch layout); bias [OC] or nullptr.
// Meant for N up to about 8; correct for any N.
void linear_rows_forward(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC);

// The same with the weights stored as IEEE half floats (weight [OC,IC]): bit for bit what linear_rows_forward
// gives on those weights converted to float, reading half the bytes (decoding is bound by reading weights).
void linear_rows_forward_f16(float* out, const float* x, const uint16_t* weight, const float* bias, int N, int IC,
                             int OC);

// Whether the F16 variant is the one to use: the CPU converts half floats in hardware (AVX-512 or F16C), or
// WebAssembly SIMD does it in four instructions. Without either it works but reads slower than floats.
bool linear_rows_f16_fast();

}  // namespace attend
