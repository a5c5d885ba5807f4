// Backward of softmax_forward / log_softmax_forward (core/kernels/softmax.h) over the last axis, from the
// forward's OUTPUT. dx accumulates (+=).
#pragma once

namespace attend {

// dx, dout, out: [N, C]; out = softmax(x). dx += out * (dout - sum(dout * out)).
void softmax_backward(float* dx, const float* dout, const float* out, int N, int C);

// dx, dout, out: [N, C]; out = log_softmax(x). dx += dout - exp(out) * sum(dout). A row of -inf (fully masked)
// contributes nothing.
void log_softmax_backward(float* dx, const float* dout, const float* out, int N, int C);

}  // namespace attend
