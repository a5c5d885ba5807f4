// Device versions of attn_mask_key_limit / attn_mask_apply (core/kernels/attn_mask.cpp), one element at a time.
// The AttnMask struct is the CPU one, passed by value; its pointers must be DEVICE pointers here.
#pragma once
#include "kernels/attn_mask.h"

#include <cuda_runtime.h>

#include <cmath>

namespace attend::cuda {

__device__ __forceinline__ bool mask_is_empty(const AttnMask& m) {
    return m.valid_lens == nullptr && m.key_padding == nullptr && !m.causal && m.bool_mask == nullptr &&
           m.additive == nullptr;
}

// CPU: attn_mask_key_limit. Keys j >= the limit are masked (valid_lens and causal), in [0, Tk].
__device__ __forceinline__ int mask_key_limit(const AttnMask& m, int b, int i, int Tq, int Tk) {
    int limit = Tk;
    if (m.valid_lens) {
        const int valid = m.valid_lens_per_query ? m.valid_lens[(size_t)b * Tq + i] : m.valid_lens[b];
        limit = min(limit, valid);
    }
    if (m.causal) limit = min(limit, i + m.causal_offset + 1);
    return max(limit, 0);
}

// CPU: attn_mask_apply for one key j of query i (batch row b, head h), given that row's key limit.
__device__ __forceinline__ float mask_score(float s, const AttnMask& m, int b, int h, int i, int j, int limit,
                                            int H, int Tq, int Tk) {
    if (j >= limit) return -INFINITY;
    if (m.key_padding && m.key_padding[(size_t)b * Tk + j]) s = -INFINITY;
    if (m.bool_mask || m.additive) {
        const size_t plane = m.attn_mask_per_head ? (size_t)b * H + h : 0;
        const size_t offset = (plane * Tq + i) * (size_t)Tk + j;
        if (m.bool_mask && m.bool_mask[offset]) s = -INFINITY;
        if (m.additive) s += m.additive[offset];
    }
    return s;
}

}  // namespace attend::cuda
