// Backward of encoder_block_forward (core/model/encoder_block.h). Gradients accumulate (+=).
#pragma once
#include "model/encoder_block.h"

namespace attend {

// dx [B*T,C] += gradient of the block input x; parameter gradients go to store's gradient buffer.
void encoder_block_backward(float* dx, const float* dout, const EncoderBlockActivations& acts, const float* x,
                            ParameterStore& store, const EncoderBlockParams& p, const AttnMask& mask, int B, int T,
                            const TransformerConfig& c);

}  // namespace attend
