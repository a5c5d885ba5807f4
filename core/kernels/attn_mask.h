// The attention masks of the seeds, in one description shared by every attention kernel.
//
// Merge semantics (seed 002, MultiheadAttention): a key is masked if ANY mask kind masks it; masked keys get
// exactly zero weight; float attn_mask values are added to the (already scaled) scores. A row whose keys are
// all masked (or whose scores are all -inf) yields all-zero probabilities and a zero output, never NaN.
// Indices: b batch, h head, i query, j key; H heads, Tq queries, Tk keys.
#pragma once
#include <cstdint>

namespace attend {

struct AttnMask {
    // d2l valid_lens: keys j >= valid_len are masked. Per batch row [B] or, if valid_lens_per_query, [B, Tq].
    const int* valid_lens = nullptr;
    bool valid_lens_per_query = false;
    // PyTorch key_padding_mask: [B, Tk], nonzero = padding (masked).
    const uint8_t* key_padding = nullptr;
    // Causal: query i sees keys j <= i + causal_offset (causal_offset = Tk - Tq when decoding with a KV cache).
    bool causal = false;
    int causal_offset = 0;
    // PyTorch attn_mask, boolean (nonzero = masked) or float (added to the scores); shape [Tq, Tk] broadcast
    // over batch and heads, or [B*H, Tq, Tk] when attn_mask_per_head.
    const uint8_t* bool_mask = nullptr;
    const float* additive = nullptr;
    bool attn_mask_per_head = false;

    bool empty() const {
        return valid_lens == nullptr && key_padding == nullptr && !causal && bool_mask == nullptr &&
               additive == nullptr;
    }
};

// Exclusive upper bound on the keys query i of batch row b may see, from valid_lens and causal alone
// (in [0, Tk]); keys at or beyond it are masked whatever the other mask kinds say.
int attn_mask_key_limit(const AttnMask& mask, int b, int i, int Tq, int Tk);

// Applies the mask to the scores of query i (batch row b, head h) for keys j0 .. j0+n-1: masked keys become
// -inf, additive values are added. scores: [n].
void attn_mask_apply(float* scores, const AttnMask& mask, int b, int h, int i, int j0, int n,
                     int H, int Tq, int Tk);

}  // namespace attend
