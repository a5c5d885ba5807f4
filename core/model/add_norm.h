// The seeds' AddNorm, one residual unit around a sublayer (attention or FFN):
//   post-LN (seeds, nn.Transformer norm_first=False): out = LayerNorm(x + dropout(sublayer(x)))
//   pre-LN  (norm_first=True):                       out = x + dropout(sublayer(LayerNorm(x)))
// Use: in = add_norm_input(ops, ...); y = sublayer(in); add_norm_forward(ops, out, ..., x, y, ...).
#pragma once
#include "model/arena.h"
#include "model/dropout.h"
#include "model/parameter_store.h"

#include <cstdint>
#include <string>

namespace attend {

struct AddNormParams {
    size_t weight = 0, bias = 0;
};
// Declares `<name>.weight [C]` and `<name>.bias [C]`; call set_layernorm_identity after allocate for 1 / 0.
AddNormParams declare_add_norm(ParameterStore& store, const std::string& name, int C);
void set_layernorm_identity(ParameterStore& store, const AddNormParams& p, int C);

struct AddNormActivations {
    float* normed = nullptr;  // [N,C] pre-LN: LayerNorm(x), the sublayer input
    float* sum = nullptr;     // [N,C] post-LN: x + dropout(y), the LayerNorm input
    float* mean = nullptr;    // [N]
    float* rstd = nullptr;    // [N]
    Dropout dropout;          // the site's counters, so the backward recomputes the same mask
};
template <class Alloc>
AddNormActivations plan_add_norm(Alloc& arena, int N, int C, bool pre_ln) {
    AddNormActivations a;
    if (pre_ln)
        a.normed = arena.take(size_t(N) * C);
    else
        a.sum = arena.take(size_t(N) * C);
    a.mean = arena.take(N);
    a.rstd = arena.take(N);
    return a;
}

// The sublayer input: x itself (post-LN) or LayerNorm(x) written to acts.normed (pre-LN). x [N,C].
template <class Ops>
const float* add_norm_input(Ops& ops, AddNormActivations& a, const float* x, const float* weight, const float* bias,
                            float eps, int N, int C, bool pre_ln) {
    if (!pre_ln) return x;
    ops.layernorm_forward(a.normed, a.mean, a.rstd, x, weight, bias, eps, N, C);
    return a.normed;
}

// out [N,C]; x [N,C] the unit's input; y [N,C] the sublayer output (dropout is applied to it in place).
template <class Ops>
void add_norm_forward(Ops& ops, float* out, AddNormActivations& a, const float* x, float* y, const float* weight,
                      const float* bias, const Dropout& dropout, float eps, int N, int C, bool pre_ln) {
    a.dropout = dropout;
    if (dropout.active()) ops.dropout_forward(y, y, dropout, int64_t(N) * C);
    if (pre_ln) {
        ops.residual_forward(out, x, y, N * C);
    } else {
        ops.residual_forward(a.sum, x, y, N * C);
        ops.layernorm_forward(out, a.mean, a.rstd, a.sum, weight, bias, eps, N, C);
    }
}

}  // namespace attend
