// Nadaraya-Watson kernel regression as attention pooling (seed 000):
//   attention[n, k] = softmax_k(-((queries[n] - keys[n, k]) * w)^2 / 2),   out[n] = sum_k attention[n, k] values[n, k]
// w = 1 is the non-parametric Gaussian-kernel estimator; the parametric model (NWKernelRegression) learns w.
// Each query has its own row of keys and values (the seed's training pairs every point with all the others).
#pragma once

namespace attend {

// out [N], attention [N, K], queries [N], keys [N, K], values [N, K].
void nadaraya_watson_forward(float* out, float* attention, const float* queries, const float* keys,
                             const float* values, float w, int N, int K);

}  // namespace attend
