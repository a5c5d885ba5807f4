// d2l's sinusoidal positional encoding: P[t, 2j] = sin(t / 10000^(2j/C)), P[t, 2j+1] = cos(same).
// An odd C simply has no cosine partner for its last column.
#pragma once

namespace attend {

void positional_encoding_table(float* P /*[T,C]*/, int T, int C);
// x[b, t, :] += P[t0 + t, :] for positions t0 .. t0+T-1 (t0 > 0 when decoding one step at a time).
void positional_encoding_add(float* x /*[B,T,C] in place*/, int B, int T, int C, int t0 = 0);

}  // namespace attend
