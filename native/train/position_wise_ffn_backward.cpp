#include "train/position_wise_ffn_backward.h"

#include "train/activations_backward.h"
#include "train/linear_backward.h"

#include <vector>

namespace attend {

void position_wise_ffn_backward(float* dx, float* dw1, float* db1, float* dw2, float* db2, const float* dout,
                                const PositionWiseFfnActivations& a, const float* x, const float* w1, const float* w2,
                                Activation activation, int N, int C, int F) {
    std::vector<float> dactivated(size_t(N) * F, 0.0f), dhidden(size_t(N) * F, 0.0f);
    linear_backward(dactivated.data(), dw2, db2, dout, a.activated, w2, N, F, C);
    if (activation == Activation::GELU)
        gelu_backward(dhidden.data(), dactivated.data(), a.hidden, N * F);
    else
        relu_backward(dhidden.data(), dactivated.data(), a.hidden, N * F);
    linear_backward(dx, dw1, db1, dhidden.data(), x, w1, N, C, F);
}

}  // namespace attend
