#include "model/position_wise_ffn.h"

namespace attend {

PositionWiseFfnParams declare_position_wise_ffn(ParameterStore& store, const std::string& prefix, int C, int F) {
    PositionWiseFfnParams p;
    p.w1 = store.declare(prefix + "linear1.weight", {F, C});
    p.b1 = store.declare(prefix + "linear1.bias", {F});
    p.w2 = store.declare(prefix + "linear2.weight", {C, F});
    p.b2 = store.declare(prefix + "linear2.bias", {C});
    return p;
}

}  // namespace attend
