#include "model/add_norm.h"

#include "kernels/activations.h"
#include "kernels/layernorm.h"

#include <algorithm>

namespace attend {

AddNormParams declare_add_norm(ParameterStore& store, const std::string& name, int C) {
    AddNormParams p;
    p.weight = store.declare(name + ".weight", {C});
    p.bias = store.declare(name + ".bias", {C});
    return p;
}

void set_layernorm_identity(ParameterStore& store, const AddNormParams& p, int C) {
    std::fill(store.value_at(p.weight), store.value_at(p.weight) + C, 1.0f);
    std::fill(store.value_at(p.bias), store.value_at(p.bias) + C, 0.0f);
}

AddNormActivations plan_add_norm(Arena& arena, int N, int C, bool pre_ln) {
    AddNormActivations a;
    if (pre_ln)
        a.normed = arena.take(size_t(N) * C);
    else
        a.sum = arena.take(size_t(N) * C);
    a.mean = arena.take(N);
    a.rstd = arena.take(N);
    return a;
}

const float* add_norm_input(AddNormActivations& a, const float* x, const float* weight, const float* bias, float eps,
                            int N, int C, bool pre_ln) {
    if (!pre_ln) return x;
    layernorm_forward(a.normed, a.mean, a.rstd, x, weight, bias, eps, N, C);
    return a.normed;
}

void add_norm_forward(float* out, AddNormActivations& a, const float* x, float* y, const float* weight,
                      const float* bias, const Dropout& dropout, float eps, int N, int C, bool pre_ln) {
    a.dropout = dropout;
    if (dropout.active()) dropout_forward(y, y, dropout, int64_t(N) * C);
    if (pre_ln) {
        residual_forward(out, x, y, N * C);
    } else {
        residual_forward(a.sum, x, y, N * C);
        layernorm_forward(out, a.mean, a.rstd, a.sum, weight, bias, eps, N, C);
    }
}

}  // namespace attend
