// Backward of embedding_forward (out[n] = scale * table[ids[n]]). The table gradient accumulates (+=); rows
// whose id is padding_idx get no gradient (as torch.nn.Embedding(padding_idx=...)); padding_idx < 0: none.
#pragma once

namespace attend {

// dtable: [V, C]; dout: [N, C]; ids: [N] in [0, V) (checked: attend::Error names the bad id).
void embedding_backward(float* dtable, const float* dout, const int* ids, float scale, int padding_idx, int N, int C,
                        int V);

}  // namespace attend
