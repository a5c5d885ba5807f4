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
PositionWiseFfnActivations plan_position_wise_ffn(Arena& arena, int N, int F);

// out [N,C]; x [N,C]; w1 [F,C]; b1 [F]; w2 [C,F]; b2 [C].
void position_wise_ffn_forward(float* out, PositionWiseFfnActivations& acts, const float* x, const float* w1,
                               const float* b1, const float* w2, const float* b2, Activation activation, int N, int C,
                               int F);

}  // namespace attend
