// CUDA mirrors of dropout_forward (core/model/dropout.h) and dropout_backward (core/train/dropout.h): the same
// counter-based RNG, so the GPU keeps exactly the elements the CPU keeps for the same Dropout (seed, offset).
// Device pointers.
#pragma once
#include "model/dropout.h"

#include <cstdint>

namespace attend::cuda {

// out = dropout(x); out may equal x; an inactive descriptor copies. out, x: [n]
void dropout_forward_cuda(float* out, const float* x, const Dropout& d, int64_t n);
// dx += mask * scale * dout (dx += dout when inactive). dx, dout: [n]
void dropout_backward_cuda(float* dx, const float* dout, const Dropout& d, int64_t n);

}  // namespace attend::cuda
