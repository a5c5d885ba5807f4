#include "kernels/masked_softmax.h"

#include "kernels/softmax.h"

#include <cstddef>
#include <cstring>

namespace attend {

void masked_softmax_forward(float* out, const float* x, const AttnMask& mask, int B, int H, int Tq, int Tk) {
    const long long rows = (long long)B * H * Tq;
#pragma omp parallel for schedule(static) if (rows * Tk >= (1 << 16))
    for (long long r = 0; r < rows; ++r) {
        const int i = (int)(r % Tq);
        const int h = (int)((r / Tq) % H);
        const int b = (int)(r / ((long long)Tq * H));
        const float* xr = x + (size_t)r * Tk;
        float* yr = out + (size_t)r * Tk;
        if (yr != xr) std::memcpy(yr, xr, sizeof(float) * Tk);
        if (!mask.empty()) attn_mask_apply(yr, mask, b, h, i, 0, Tk, H, Tq, Tk);
        softmax_row(yr, yr, Tk);
    }
}

}  // namespace attend
