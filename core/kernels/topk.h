// Greedy and beam-search selection over scores.
#pragma once

namespace attend {

// Index of the largest of x[0..n); the lowest index among equal maxima; NaNs are skipped (all NaN: 0). Throws
// attend::Error if n <= 0.
int argmax(const float* x, int n);
// The k largest of x[0..n) in descending order; ties: lower index first. Throws attend::Error unless 0 <= k <= n.
void topk(int* indices /*[k]*/, float* values /*[k]*/, const float* x, int n, int k);

}  // namespace attend
