#include "kernels/attn_mask.h"

#include "kernels/simd.h"

#include <algorithm>
#include <cstddef>

namespace attend {

int attn_mask_key_limit(const AttnMask& mask, int b, int i, int Tq, int Tk) {
    int limit = Tk;
    if (mask.valid_lens) {
        const int valid = mask.valid_lens_per_query ? mask.valid_lens[(size_t)b * Tq + i] : mask.valid_lens[b];
        limit = std::min(limit, valid);
    }
    if (mask.causal) limit = std::min(limit, i + mask.causal_offset + 1);
    return std::max(limit, 0);
}

void attn_mask_apply(float* scores, const AttnMask& mask, int b, int h, int i, int j0, int n,
                     int H, int Tq, int Tk) {
    const int limit = attn_mask_key_limit(mask, b, i, Tq, Tk);
    for (int j = std::max(limit - j0, 0); j < n; ++j) scores[j] = simd::kNegInf;
    const int visible = std::clamp(limit - j0, 0, n);
    if (mask.key_padding) {
        const uint8_t* pad = mask.key_padding + (size_t)b * Tk + j0;
        for (int j = 0; j < visible; ++j)
            if (pad[j]) scores[j] = simd::kNegInf;
    }
    if (mask.bool_mask || mask.additive) {
        const size_t plane = mask.attn_mask_per_head ? (size_t)b * H + h : 0;
        const size_t offset = (plane * Tq + i) * (size_t)Tk + j0;
        if (mask.bool_mask) {
            const uint8_t* masked = mask.bool_mask + offset;
            for (int j = 0; j < visible; ++j)
                if (masked[j]) scores[j] = simd::kNegInf;
        }
        if (mask.additive) {
            const float* add = mask.additive + offset;
            for (int j = 0; j < visible; ++j) scores[j] += add[j];
        }
    }
}

}  // namespace attend
