#include "train/char_lm_backward.h"

#include <vector>

#include "error.h"
#include "lm/char_lm.h"
#include "train/linear_backward.h"
#include "train/rnn_backward.h"

namespace attend {

void char_lm_backward(CharLm& model, const float* dlogits) {
    ParameterStore& store = model.parameters();
    if (!store.has_grads()) throw Error("char_lm_backward: the parameter store has no gradient buffer");
    const CharLm::Saved& s = model.saved;
    if (s.T == 0) throw Error("char_lm_backward: called before forward");
    const int N = s.T * s.B, DH = model.output_size(), V = model.vocab_size();
    std::vector<float> d_rnn_out(size_t(N) * DH, 0.0f);
    linear_backward(d_rnn_out.data(), store.grad_at(model.linear_weight()), store.grad_at(model.linear_bias()), dlogits,
                    s.rnn_out.data(), store.value_at(model.linear_weight()), N, DH, V);
    rnn_backward(model.rnn(), nullptr, nullptr, nullptr, d_rnn_out.data(), nullptr, nullptr);
}

}  // namespace attend
