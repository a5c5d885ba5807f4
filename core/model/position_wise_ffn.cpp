#include "model/position_wise_ffn.h"

#include "kernels/activations.h"
#include "model/linear.h"

namespace attend {

PositionWiseFfnParams declare_position_wise_ffn(ParameterStore& store, const std::string& prefix, int C, int F) {
    PositionWiseFfnParams p;
    p.w1 = store.declare(prefix + "linear1.weight", {F, C});
    p.b1 = store.declare(prefix + "linear1.bias", {F});
    p.w2 = store.declare(prefix + "linear2.weight", {C, F});
    p.b2 = store.declare(prefix + "linear2.bias", {C});
    return p;
}

PositionWiseFfnActivations plan_position_wise_ffn(Arena& arena, int N, int F) {
    PositionWiseFfnActivations a;
    a.hidden = arena.take(size_t(N) * F);
    a.activated = arena.take(size_t(N) * F);
    return a;
}

void position_wise_ffn_forward(float* out, PositionWiseFfnActivations& a, const float* x, const float* w1,
                               const float* b1, const float* w2, const float* b2, Activation activation, int N, int C,
                               int F) {
    linear_forward(a.hidden, x, w1, b1, N, C, F);
    if (activation == Activation::GELU)
        gelu_forward(a.activated, a.hidden, N * F);
    else
        relu_forward(a.activated, a.hidden, N * F);
    linear_forward(out, a.activated, w2, b2, N, F, C);
}

}  // namespace attend
