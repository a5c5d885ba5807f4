// Backward of transformer_forward (core/model/transformer.h): from dlogits to every parameter gradient in
// model.params (accumulated, +=; call model.params.zero_grad() between steps).
#pragma once
#include "model/transformer.h"

namespace attend {

// dlogits [B,T,V]; acts, src [B,S] and tgt [B,T] exactly as passed to transformer_forward.
void transformer_backward(Transformer& model, const TransformerActivations& acts, const float* dlogits, const int* src,
                          const int* tgt);

}  // namespace attend
