// Losses over logits, each with its backward (dlogits ACCUMULATE, +=, like every gradient in Attend).
#pragma once

namespace attend {

// nn.CrossEntropyLoss(reduction='none', ignore_index, label_smoothing) per row:
//   loss_n = (1 - s) * (-log p[n, y_n]) + s / V * sum_c (-log p[n, c]),  p = softmax(logits[n])
// and 0 for rows whose target is ignore_index (use a negative ignore_index, e.g. -100, for none).
// losses [N] (may be null), probs [N, V] softmax saved for the backward, logits [N, V], targets [N].
// Returns the sum of the row losses. A target outside [0, V) that is not ignore_index throws attend::Error.
double cross_entropy_forward(float* losses, float* probs, const float* logits, const int* targets, int ignore_index,
                             float label_smoothing, int N, int V);

// Rows whose target is not ignore_index: PyTorch's 'mean' reduction divides the summed loss by this count.
int cross_entropy_count(const int* targets, int ignore_index, int N);

// dlogits[n] += g_n * ((probs[n] - (1 - s) * onehot(y_n) - s / V)), g_n = dlosses[n] if dlosses is not null,
// else dloss (the same for every row, e.g. 1 / count for the mean). Ignored rows get nothing.
// dlogits [N, V], dlosses [N] or null, probs [N, V], targets [N].
void cross_entropy_backward(float* dlogits, const float* dlosses, float dloss, const float* probs, const int* targets,
                            int ignore_index, float label_smoothing, int N, int V);

// cross_entropy_forward and then cross_entropy_backward into zeroed dlogits with dlosses null, in place: logits
// [N, V] in, their gradient dloss * d(sum of the row losses) / dlogits out (ignored rows: zeros), with the bits of
// the two calls, and no [N, V] buffer of probabilities or gradients besides. Returns the sum of the row losses.
double cross_entropy_fused(float* logits, const int* targets, int ignore_index, float label_smoothing, float dloss,
                           int N, int V);

// The seeds' MaskedSoftmaxCELoss: per sequence, the CE of steps t < valid_len[b] (the rest weighted 0) averaged
// over ALL T steps: loss_b = (1/T) sum_{t < valid_len[b]} CE(logits[b, t], labels[b, t]).
// losses [B], probs [B, T, V] saved for the backward, logits [B, T, V], labels [B, T], valid_len [B].
// Returns sum_b loss_b (the seeds train on l.sum()).
double masked_softmax_ce_forward(float* losses, float* probs, const float* logits, const int* labels,
                                 const int* valid_len, int B, int T, int V);

// dlogits += d(sum_b dlosses[b] * loss_b) / dlogits; dlosses [B] or null for all ones (gradient of l.sum()).
void masked_softmax_ce_backward(float* dlogits, const float* dlosses, const float* probs, const int* labels,
                                const int* valid_len, int B, int T, int V);

}  // namespace attend
