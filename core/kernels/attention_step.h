// Scaled dot-product attention of one query over a run of keys: the decoding step of a Transformer (one new
// position per hypothesis, keys and values from a cache). No allocation: the caller provides the score buffer.
#pragma once

namespace attend {

// out [D] = softmax(q k^T * scale) v over the keys 0..Tk-1; q [D]; k, v [Tk,D] (rows D floats apart).
// scores [Tk]: scratch. probs [Tk] or nullptr: receives the attention weights. Tk == 0 (every key masked)
// gives a zero output. scale <= 0 means 1/sqrt(D).
void attention_step_forward(float* out, float* probs, float* scores, const float* q, const float* k, const float* v,
                            int Tk, int D, float scale = 0.0f);

}  // namespace attend
