// Host masks of every kind AttnMask supports, alone and merged, for the softmax and attention tests.
#pragma once
#include "cuda_test_util.h"

#include <memory>

namespace attend::cuda_test {

struct HostMask {
    std::string name;
    std::vector<int> lens;
    std::vector<uint8_t> pad, boolm;
    std::vector<float> add;
    AttnMask mask;
    HostMask() = default;
    HostMask(const HostMask&) = delete;  // mask points into the vectors
};

inline int mask_case_count() { return 10; }

// Case `which` in [0, mask_case_count()) for sizes B, H, Tq, Tk. Several cases contain fully masked rows
// (valid length 0, a fully padded batch row, an all-true boolean row) to check the zero-not-NaN rule.
inline std::unique_ptr<HostMask> make_mask_case(int which, int B, int H, int Tq, int Tk, uint32_t seed) {
    auto m = std::make_unique<HostMask>();
    std::mt19937 gen(seed);
    auto coin = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(gen) < p; };
    auto lens_per_row = [&] {
        m->lens = random_ints(B, seed + 1, 0, Tk);
        m->lens[0] = 0;  // a fully masked batch row
        if (B > 1) m->lens[1] = Tk;
        m->mask.valid_lens = m->lens.data();
    };
    auto key_padding = [&] {
        m->pad.resize(size_t(B) * Tk);
        for (auto& p : m->pad) p = coin(0.3);
        if (B > 1)
            for (int j = 0; j < Tk; ++j) m->pad[size_t(1) * Tk + j] = 1;  // batch row 1 entirely padding
        m->mask.key_padding = m->pad.data();
    };
    auto plane_size = [&](bool per_head) { return (per_head ? size_t(B) * H : 1) * Tq * Tk; };
    switch (which) {
        case 0: m->name = "no mask"; break;
        case 1: m->name = "valid_lens per batch row"; lens_per_row(); break;
        case 2:
            m->name = "valid_lens per query";
            m->lens = random_ints(size_t(B) * Tq, seed + 2, 0, Tk);
            m->mask.valid_lens = m->lens.data();
            m->mask.valid_lens_per_query = true;
            break;
        case 3: m->name = "key padding"; key_padding(); break;
        case 4: m->name = "causal"; m->mask.causal = true; break;
        case 5:
            m->name = "causal with offset Tk - Tq";
            m->mask.causal = true;
            m->mask.causal_offset = Tk - Tq;  // may be negative: leading queries then see nothing
            break;
        case 6:
            m->name = "boolean attn_mask broadcast";
            m->boolm.resize(plane_size(false));
            for (auto& b : m->boolm) b = coin(0.25);
            for (int j = 0; j < Tk; ++j) m->boolm[j] = 1;  // query 0 sees nothing
            m->mask.bool_mask = m->boolm.data();
            break;
        case 7:
            m->name = "additive float attn_mask broadcast";
            m->add = random_vector(plane_size(false), seed + 3, -3.0f, 3.0f);
            m->mask.additive = m->add.data();
            break;
        case 8:
            m->name = "additive per head + key padding + causal";
            m->add = random_vector(plane_size(true), seed + 4, -2.0f, 2.0f);
            for (size_t i = 0; i < m->add.size(); i += 7) m->add[i] = -INFINITY;  // -inf entries in a float mask
            m->mask.additive = m->add.data();
            m->mask.attn_mask_per_head = true;
            key_padding();
            m->mask.causal = true;
            break;
        default:
            m->name = "boolean per head + valid_lens + additive per head";
            m->boolm.resize(plane_size(true));
            for (auto& b : m->boolm) b = coin(0.2);
            m->add = random_vector(plane_size(true), seed + 5, -1.0f, 1.0f);
            m->mask.bool_mask = m->boolm.data();
            m->mask.additive = m->add.data();
            m->mask.attn_mask_per_head = true;
            lens_per_row();
            break;
    }
    return m;
}

}  // namespace attend::cuda_test
