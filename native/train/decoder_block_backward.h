// Backward of decoder_block_forward (core/model/decoder_block.h). Gradients accumulate (+=).
#pragma once
#include "model/decoder_block.h"

namespace attend {

// dx [B*T,C] += gradient of the block input; dmemory [B*S,C] += gradient of the encoder output through the
// encoder-decoder attention; parameter gradients go to store's gradient buffer.
void decoder_block_backward(float* dx, float* dmemory, const float* dout, const DecoderBlockActivations& acts,
                            const float* x, const float* memory, ParameterStore& store, const DecoderBlockParams& p,
                            const AttnMask& self_mask, const AttnMask& cross_mask, int B, int T, int S,
                            const TransformerConfig& c);

}  // namespace attend
