// Backward of CharLm::forward (core/lm/char_lm.h) from what it saved: the output layer, then BPTT through the
// recurrent stack (train/rnn_backward.h). Parameter gradients accumulate into the model's store; the one-hot input
// needs none, and the start state none either (d2l detaches it between batches).
#pragma once

namespace attend {

class CharLm;

// dlogits [T*B, V], the gradient of the logits of the last forward (time-major rows).
void char_lm_backward(CharLm& model, const float* dlogits);

}  // namespace attend
