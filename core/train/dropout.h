// Dropout for training: the forward and the counter-based RNG are portable and live in core/model/dropout.h
// (forward passes take a Dropout descriptor); the backward is here.
#pragma once
#include <cstdint>

#include "model/dropout.h"

namespace attend {

// dx += dropout mask * scale * dout, the mask recomputed from d's (seed, offset). dx, dout: [n]
void dropout_backward(float* dx, const float* dout, const Dropout& d, int64_t n);

}  // namespace attend
