// Backward of layernorm_forward (core/kernels/layernorm.h). Gradients accumulate (+=).
#pragma once

namespace attend {

// dx, dout, x: [N, C]; dweight, dbias: [C] (nullptr when the forward had no weight / bias); mean, rstd: [N]
// as saved by layernorm_forward; weight: [C] or nullptr (= 1).
void layernorm_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x, const float* mean,
                        const float* rstd, const float* weight, int N, int C);

}  // namespace attend
