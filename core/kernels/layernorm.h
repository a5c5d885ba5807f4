// Layer normalisation over the last axis, llm.c style: mean and rstd are saved for the backward pass.
#pragma once

namespace attend {

// x, out: [N, C]; weight, bias: [C] (nullptr means 1 and 0); mean, rstd: [N] or nullptr at inference.
// out may equal x. The variance is the biased one (divide by C), as in torch.nn.LayerNorm.
void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* weight,
                       const float* bias, float eps, int N, int C);

}  // namespace attend
