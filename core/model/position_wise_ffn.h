// The seeds' PositionWiseFFN: linear1 -> ReLU (or GELU) -> linear2, applied to every position alike.
#pragma once
#include "model/arena.h"
#include "model/parameter_store.h"
#include "model/transformer_config.h"

#include <string>

namespace attend {

struct PositionWiseFfnParams {
    size_t w1 = 0, b1 = 0, w2 = 0, b2 = 0;
};

// prefix ends with a dot (e.g. "encoder.layers.0."). Declares `<prefix>linear1.{weight [F,C], bias [F]}` and
// `<prefix>linear2.{weight [C,F], bias [C]}`.
PositionWiseFfnParams declare_position_wise_ffn(ParameterStore& store, const std::string& prefix, int C, int F);

struct PositionWiseFfnActivations {
    float* hidden = nullptr;     // [N,F] linear1 output (activation input)
    float* activated = nullptr;  // [N,F] activation output (linear2 input)
};
template <class Alloc>
PositionWiseFfnActivations plan_position_wise_ffn(Alloc& arena, int N, int F) {
    PositionWiseFfnActivations a;
    a.hidden = arena.take(size_t(N) * F);
    a.activated = arena.take(size_t(N) * F);
    return a;
}

// out [N,C]; x [N,C]; w1 [F,C]; b1 [F]; w2 [C,F]; b2 [C].
template <class Ops>
void position_wise_ffn_forward(Ops& ops, float* out, PositionWiseFfnActivations& a, const float* x, const float* w1,
                               const float* b1, const float* w2, const float* b2, Activation activation, int N, int C,
                               int F) {
    ops.linear_forward(a.hidden, x, w1, b1, N, C, F);
    if (activation == Activation::GELU)
        ops.gelu_forward(a.activated, a.hidden, N * F);
    else
        ops.relu_forward(a.activated, a.hidden, N * F);
    ops.linear_forward(out, a.activated, w2, b2, N, F, C);
}

}  // namespace attend
