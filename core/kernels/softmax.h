// Softmax and log-softmax over the last axis. The row maximum is subtracted first, so logits of any
// magnitude give finite results; a row that is entirely -inf (fully masked) gives zeros, not NaN.
#pragma once

namespace attend {

void softmax_forward(float* out, const float* x, int N, int C);        // out, x: [N, C], over the last axis
void log_softmax_forward(float* out, const float* x, int N, int C);    // out, x: [N, C]; an all -inf row gives -inf

// log_softmax_forward(x)[index] for one row x [C], without writing the row: the same value, bit for bit.
float log_softmax_at(const float* x, int C, int index);
// One row (out may equal x). Returns the row's log-sum-exp (-inf for an all -inf row). out, x: [C]
float softmax_row(float* out, const float* x, int C);

}  // namespace attend
