#include "model/add_norm.h"

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

}  // namespace attend
