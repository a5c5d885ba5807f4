// CUDA mirrors of cross_entropy_forward / cross_entropy_backward (core/train/loss.h): nn.CrossEntropyLoss with
// ignore_index and label smoothing, per row
//   loss_n = (1 - s) (-log p[n, y_n]) + s / V sum_c (-log p[n, c]),  p = softmax(logits[n]); 0 for ignored rows.
// One block per row (max, sum of exp, sum of logits, the softmax saved for the backward). Device pointers.
#pragma once

namespace attend::cuda {

// losses [N] (may be null), probs [N, V] (the row softmax, kept for the backward), total: one device double, or
// null, receiving the sum of the row losses (in double, a deterministic block sum); logits [N, V],
// targets [N]. The CPU throws on a target outside [0, V) that is not ignore_index; here such a row's loss is NaN
// (validate targets on the host before uploading them).
void cross_entropy_forward_cuda(float* losses, float* probs, double* total, const float* logits, const int* targets,
                                int ignore_index, float label_smoothing, int N, int V);

// dlogits[n] += g_n (probs[n] - (1 - s) onehot(y_n) - s / V), g_n = dlosses[n] if dlosses (device, [N]) is not
// null, else dloss. Ignored rows (and out-of-range targets) get nothing. dlogits, probs [N, V]; targets [N].
void cross_entropy_backward_cuda(float* dlogits, const float* dlosses, float dloss, const float* probs,
                                 const int* targets, int ignore_index, float label_smoothing, int N, int V);

// The training step's classifier in one pass and in place: losses and total as cross_entropy_forward_cuda, and
// logits [N, V] overwritten with dlogits = dloss (probs - (1 - s) onehot(y) - s / V), 0 in ignored rows (and rows
// with an out-of-range target): what cross_entropy_forward_cuda then cross_entropy_backward_cuda into zeroed
// dlogits give, without their [N, V] softmax and gradient buffers.
void cross_entropy_fused_cuda(float* losses, double* total, float* logits, const int* targets, int ignore_index,
                              float label_smoothing, float dloss, int N, int V);

}  // namespace attend::cuda
