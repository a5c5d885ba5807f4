// Backward of nadaraya_watson_forward (core/model/nadaraya_watson.h). Gradients accumulate (+=); the pointer of
// any gradient not wanted may be null.
// Unlike the other backward passes (native/train/), it is part of the portable core: the attention lab
// (web/lab.html, through wasm/src/lab_bindings.cpp) trains the parametric w in the browser.
#pragma once

namespace attend {

// dw: scalar; dqueries [N], dkeys [N, K], dvalues [N, K]; dout [N]; the rest as the forward used or left them.
void nadaraya_watson_backward(float* dw, float* dqueries, float* dkeys, float* dvalues, const float* dout,
                              const float* attention, const float* out, const float* queries, const float* keys,
                              const float* values, float w, int N, int K);

}  // namespace attend
