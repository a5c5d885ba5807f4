// d2l's masked_softmax generalised to every mask kind of AttnMask (see attn_mask.h for the merge rules).
#pragma once
#include "kernels/attn_mask.h"

namespace attend {

// x, out: [B, H, Tq, Tk] (H = 1 for d2l's 3-D masked_softmax); scores are already scaled. out may equal x.
void masked_softmax_forward(float* out, const float* x, const AttnMask& mask, int B, int H, int Tq, int Tk);

}  // namespace attend
