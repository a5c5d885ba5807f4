#include "train/add_norm_backward.h"

#include "train/activations_backward.h"
#include "train/dropout.h"
#include "train/layernorm_backward.h"

#include <vector>

namespace attend {

void add_norm_backward(float* dx, float* dy, float* dweight, float* dbias, const float* dout,
                       const AddNormActivations& a, const float* weight, int N, int C, bool pre_ln) {
    const float* dsum = dout;
    std::vector<float> dsum_buffer;
    if (!pre_ln) {
        dsum_buffer.assign(size_t(N) * C, 0.0f);
        layernorm_backward(dsum_buffer.data(), dweight, dbias, dout, a.sum, a.mean, a.rstd, weight, N, C);
        dsum = dsum_buffer.data();
    }
    if (a.dropout.active()) {
        dropout_backward(dy, dsum, a.dropout, int64_t(N) * C);
        for (size_t i = 0, n = size_t(N) * C; i < n; ++i) dx[i] += dsum[i];
    } else {
        residual_backward(dx, dy, dsum, N * C);
    }
}

void add_norm_input_backward(float* dx, float* dweight, float* dbias, const float* dinput, const AddNormActivations& a,
                             const float* x, const float* weight, int N, int C, bool pre_ln) {
    if (pre_ln) {
        layernorm_backward(dx, dweight, dbias, dinput, x, a.mean, a.rstd, weight, N, C);
    } else {
        for (size_t i = 0, n = size_t(N) * C; i < n; ++i) dx[i] += dinput[i];
    }
}

}  // namespace attend
