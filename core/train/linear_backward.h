// The trainer's linear layer: its forward through train/gemm.h, and the backward of linear_forward
// (core/model/linear.h). Every gradient ACCUMULATES (+=), dx included, so a tensor read by several layers (residual
// streams, shared inputs) collects all of its gradients.
#pragma once

namespace attend {

// linear_forward (model/linear.h: out [N,OC] = x [N,IC] weight[OC,IC]^T + bias; x null: the bias rows) with its
// products through gemm_accumulate (train/gemm.h): the training forward's.
void linear_forward_gemm(float* out, const float* x, const float* weight, const float* bias, int N, int IC, int OC);

// dx [N, IC] or null (input needs no gradient), dweight [OC, IC], dbias [OC] or null (no bias),
// dout [N, OC], x [N, IC] or null (zeros, as in linear_forward), weight [OC, IC].
void linear_backward(float* dx, float* dweight, float* dbias, const float* dout, const float* x, const float* weight,
                     int N, int IC, int OC);

}  // namespace attend
