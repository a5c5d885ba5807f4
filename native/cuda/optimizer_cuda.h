// CUDA mirrors of adam_update, global_grad_norm and clip_grad_norm (core/train/optimizer.h), over the same flat
// buffers (element i of m, v belongs to element i of the parameters). Device pointers.
#pragma once
#include "train/optimizer.h"

#include <cstddef>
#include <cstdint>

namespace attend::cuda {

// CPU: adam_update (torch.optim.Adam / AdamW, bias-corrected). params, m, v, grads: [n]; t is the 1-based step.
void adam_update_cuda(float* params, float* m, float* v, const float* grads, size_t n, int64_t t, float lr,
                      const AdamConfig& config);

// CPU: global_grad_norm. The L2 norm of grads [n], accumulated in double: per-block partial sums, then one block
// adds them in order (deterministic). norm: one device double. partials: device scratch of
// global_grad_norm_partials(n) doubles, or null to allocate one inside the call.
size_t global_grad_norm_partials(size_t n);
void global_grad_norm_cuda(double* norm, const float* grads, size_t n, double* partials = nullptr);

// CPU: clip_grad_norm. If the norm exceeds theta, grads *= theta / norm, decided on the device (no host sync).
// norm receives the norm before clipping (one device double).
void clip_grad_norm_cuda(double* norm, float* grads, size_t n, double theta, double* partials = nullptr);

}  // namespace attend::cuda
