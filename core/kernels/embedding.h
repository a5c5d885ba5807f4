// Token embedding lookup, scaled (the Transformer multiplies by sqrt(C)).
#pragma once

namespace attend {

// out: [N,C]; ids: [N]; table: [V,C]. Throws attend::Error naming the bad id (and its position) if an id is
// outside [0, V); nothing is written then.
void embedding_forward(float* out /*[N,C]*/, const int* ids /*[N]*/, const float* table /*[V,C]*/,
                       float scale /*e.g. sqrt(C)*/, int N, int C, int V);

}  // namespace attend
