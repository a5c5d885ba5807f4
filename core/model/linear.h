// Fully connected layer, PyTorch layout: weight [OC, IC], out = x weight^T + bias.
#pragma once

namespace attend {

// out [N, OC], x [N, IC] or null (zeros: out = bias, a recurrent cell's first step with no start state), weight
// [OC, IC], bias [OC] or null. Rows are split over OpenMP threads when the product is large enough to pay for it.
void linear_forward(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC);

}  // namespace attend
