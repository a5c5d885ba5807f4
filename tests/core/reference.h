// Double-precision scalar references for the kernels in core/kernels, written as plainly as possible (no SIMD,
// no tiling, no online softmax) so that a kernel and its reference share no code. Shared by every test writer:
// each reference takes float inputs as the kernel does and returns doubles.
#pragma once
#include "kernels/attn_mask.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace attend::reference {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------- comparisons and inputs

// Every element must satisfy |got - want| <= atol + rtol * |want|; reports the first few failures by index.
inline void check_close(const float* got, const std::vector<double>& want, double atol, double rtol,
                        const std::string& what) {
    int failures = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        const bool same_inf = std::isinf(want[i]) && (double)got[i] == want[i];
        const bool ok = same_inf || std::fabs((double)got[i] - want[i]) <= atol + rtol * std::fabs(want[i]);
        if (!ok && failures++ < 5)
            FAIL_CHECK(what << "[" << i << "]: got " << got[i] << ", expected " << want[i] << " (atol " << atol
                            << ", rtol " << rtol << ")");
    }
    CHECK_MESSAGE(failures == 0, what << ": " << failures << " of " << want.size() << " elements differ");
}

inline std::vector<float> random_floats(std::mt19937& rng, size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> x(n);
    for (auto& v : x) v = dist(rng);
    return x;
}

// A random AttnMask that owns its arrays. kinds: a bitwise OR of the MaskKind flags. Random masks mask about a
// third of the keys, and valid lengths include 0, so fully masked rows occur.
enum MaskKind : unsigned {
    kValidLens = 1, kValidLensPerQuery = 2, kKeyPadding = 4, kCausal = 8, kBoolMask = 16, kAdditive = 32,
    kPerHead = 64,
};

struct OwnedMask {
    std::vector<int> valid_lens;
    std::vector<uint8_t> key_padding, bool_mask;
    std::vector<float> additive;
    AttnMask mask;
};

inline OwnedMask random_mask(std::mt19937& rng, unsigned kinds, int B, int H, int Tq, int Tk, int causal_offset = 0) {
    OwnedMask m;
    std::uniform_int_distribution<int> len(0, Tk);
    std::bernoulli_distribution third(1.0 / 3.0);
    if (kinds & (kValidLens | kValidLensPerQuery)) {
        m.valid_lens.resize((kinds & kValidLensPerQuery) ? (size_t)B * Tq : B);
        for (auto& v : m.valid_lens) v = len(rng);
        m.valid_lens[0] = 0;
        m.mask.valid_lens = m.valid_lens.data();
        m.mask.valid_lens_per_query = (kinds & kValidLensPerQuery) != 0;
    }
    if (kinds & kKeyPadding) {
        m.key_padding.resize((size_t)B * Tk);
        for (auto& v : m.key_padding) v = third(rng);
        m.mask.key_padding = m.key_padding.data();
    }
    if (kinds & kCausal) {
        m.mask.causal = true;
        m.mask.causal_offset = causal_offset;
    }
    const size_t planes = (kinds & kPerHead) ? (size_t)B * H : 1;
    m.mask.attn_mask_per_head = (kinds & kPerHead) != 0;
    if (kinds & kBoolMask) {
        m.bool_mask.resize(planes * Tq * Tk);
        for (auto& v : m.bool_mask) v = third(rng);
        m.mask.bool_mask = m.bool_mask.data();
    }
    if (kinds & kAdditive) {
        m.additive = random_floats(rng, planes * Tq * Tk, -2.0f, 2.0f);
        for (auto& v : m.additive)
            if (third(rng)) v = -std::numeric_limits<float>::infinity();
        m.mask.additive = m.additive.data();
    }
    return m;
}

// ---------------------------------------------------------------- softmax family

inline std::vector<double> softmax(const float* x, int N, int C) {
    std::vector<double> y((size_t)N * C, 0.0);
    for (int n = 0; n < N; ++n) {
        const float* xr = x + (size_t)n * C;
        double m = kNegInf;
        for (int c = 0; c < C; ++c) m = std::max(m, (double)xr[c]);
        if (m == kNegInf) continue;  // fully masked row: zeros
        double s = 0.0;
        for (int c = 0; c < C; ++c) s += std::exp((double)xr[c] - m);
        for (int c = 0; c < C; ++c) y[(size_t)n * C + c] = std::exp((double)xr[c] - m) / s;
    }
    return y;
}

inline std::vector<double> log_softmax(const float* x, int N, int C) {
    std::vector<double> y((size_t)N * C, kNegInf);
    for (int n = 0; n < N; ++n) {
        const float* xr = x + (size_t)n * C;
        double m = kNegInf;
        for (int c = 0; c < C; ++c) m = std::max(m, (double)xr[c]);
        if (m == kNegInf) continue;
        double s = 0.0;
        for (int c = 0; c < C; ++c) s += std::exp((double)xr[c] - m);
        for (int c = 0; c < C; ++c) y[(size_t)n * C + c] = (double)xr[c] - m - std::log(s);
    }
    return y;
}

// ---------------------------------------------------------------- masks (seed 002 merge semantics)

inline bool is_masked(const AttnMask& mask, int b, int h, int i, int j, int H, int Tq, int Tk) {
    if (mask.valid_lens) {
        const int valid = mask.valid_lens_per_query ? mask.valid_lens[(size_t)b * Tq + i] : mask.valid_lens[b];
        if (j >= valid) return true;
    }
    if (mask.key_padding && mask.key_padding[(size_t)b * Tk + j]) return true;
    if (mask.causal && j > i + mask.causal_offset) return true;
    const size_t plane = mask.attn_mask_per_head ? (size_t)b * H + h : 0;
    if (mask.bool_mask && mask.bool_mask[(plane * Tq + i) * Tk + j]) return true;
    return false;
}

inline double additive_term(const AttnMask& mask, int b, int h, int i, int j, int H, int Tq, int Tk) {
    if (!mask.additive) return 0.0;
    const size_t plane = mask.attn_mask_per_head ? (size_t)b * H + h : 0;
    return mask.additive[(plane * Tq + i) * Tk + j];
}

// Softmax of one row of scaled scores under the mask: masked keys get zero weight, an all-masked row zeros.
inline std::vector<double> masked_softmax_row(const std::vector<double>& scores, const AttnMask& mask, int b,
                                              int h, int i, int H, int Tq, int Tk) {
    std::vector<double> s(Tk), p(Tk, 0.0);
    double m = kNegInf;
    for (int j = 0; j < Tk; ++j) {
        s[j] = is_masked(mask, b, h, i, j, H, Tq, Tk) ? kNegInf : scores[j] + additive_term(mask, b, h, i, j, H, Tq, Tk);
        m = std::max(m, s[j]);
    }
    if (m == kNegInf) return p;
    double total = 0.0;
    for (int j = 0; j < Tk; ++j) total += s[j] == kNegInf ? 0.0 : std::exp(s[j] - m);
    for (int j = 0; j < Tk; ++j) p[j] = s[j] == kNegInf ? 0.0 : std::exp(s[j] - m) / total;
    return p;
}

// x: [B,H,Tq,Tk] -> [B,H,Tq,Tk]
inline std::vector<double> masked_softmax(const float* x, const AttnMask& mask, int B, int H, int Tq, int Tk) {
    std::vector<double> y((size_t)B * H * Tq * Tk);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < Tq; ++i) {
                const size_t row = (((size_t)b * H + h) * Tq + i) * Tk;
                std::vector<double> s(x + row, x + row + Tk);
                auto p = masked_softmax_row(s, mask, b, h, i, H, Tq, Tk);
                for (int j = 0; j < Tk; ++j) y[row + j] = p[j];
            }
    return y;
}

// ---------------------------------------------------------------- attention

struct AttentionResult {
    std::vector<double> out;            // [B,H,Tq,D]
    std::vector<double> probs;          // [B,H,Tq,Tk]
    std::vector<double> row_logsumexp;  // [B,H,Tq], -inf for a fully masked row
};

// Scaled dot-product attention, layout [B,H,T,D]; scale <= 0 means 1/sqrt(D).
inline AttentionResult attention(const float* q, const float* k, const float* v, const AttnMask& mask, int B,
                                 int H, int Tq, int Tk, int D, double scale = 0.0) {
    if (scale <= 0.0) scale = 1.0 / std::sqrt((double)D);
    AttentionResult r;
    r.out.assign((size_t)B * H * Tq * D, 0.0);
    r.probs.assign((size_t)B * H * Tq * Tk, 0.0);
    r.row_logsumexp.assign((size_t)B * H * Tq, kNegInf);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            const size_t bh = (size_t)b * H + h;
            for (int i = 0; i < Tq; ++i) {
                std::vector<double> s(Tk);
                for (int j = 0; j < Tk; ++j) {
                    double dot = 0.0;
                    for (int d = 0; d < D; ++d) dot += (double)q[(bh * Tq + i) * D + d] * k[(bh * Tk + j) * D + d];
                    s[j] = dot * scale;
                }
                auto p = masked_softmax_row(s, mask, b, h, i, H, Tq, Tk);
                double m = kNegInf, total = 0.0;
                for (int j = 0; j < Tk; ++j)
                    if (!is_masked(mask, b, h, i, j, H, Tq, Tk)) m = std::max(m, s[j] + additive_term(mask, b, h, i, j, H, Tq, Tk));
                if (m != kNegInf) {
                    for (int j = 0; j < Tk; ++j)
                        if (!is_masked(mask, b, h, i, j, H, Tq, Tk))
                            total += std::exp(s[j] + additive_term(mask, b, h, i, j, H, Tq, Tk) - m);
                    r.row_logsumexp[bh * Tq + i] = m + std::log(total);
                }
                for (int j = 0; j < Tk; ++j) {
                    r.probs[(bh * Tq + i) * Tk + j] = p[j];
                    for (int d = 0; d < D; ++d) r.out[(bh * Tq + i) * D + d] += p[j] * v[(bh * Tk + j) * D + d];
                }
            }
        }
    return r;
}

// d2l AdditiveAttention on projected inputs: q_proj [B,Tq,Hd], k_proj [B,Tk,Hd], w_v [Hd], values [B,Tk,Dv].
inline AttentionResult additive_attention(const float* q_proj, const float* k_proj, const float* w_v,
                                          const float* values, const AttnMask& mask, int B, int Tq, int Tk, int Hd,
                                          int Dv) {
    AttentionResult r;
    r.out.assign((size_t)B * Tq * Dv, 0.0);
    r.probs.assign((size_t)B * Tq * Tk, 0.0);
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < Tq; ++i) {
            std::vector<double> s(Tk);
            for (int j = 0; j < Tk; ++j) {
                double acc = 0.0;
                for (int c = 0; c < Hd; ++c)
                    acc += (double)w_v[c] * std::tanh((double)q_proj[((size_t)b * Tq + i) * Hd + c] +
                                                      (double)k_proj[((size_t)b * Tk + j) * Hd + c]);
                s[j] = acc;
            }
            auto p = masked_softmax_row(s, mask, b, 0, i, 1, Tq, Tk);
            for (int j = 0; j < Tk; ++j) {
                r.probs[((size_t)b * Tq + i) * Tk + j] = p[j];
                for (int d = 0; d < Dv; ++d)
                    r.out[((size_t)b * Tq + i) * Dv + d] += p[j] * values[((size_t)b * Tk + j) * Dv + d];
            }
        }
    return r;
}

// ---------------------------------------------------------------- normalisation, activations, encodings

// torch.nn.LayerNorm: biased variance. mean/rstd receive [N].
inline std::vector<double> layernorm(const float* x, const float* weight, const float* bias, double eps, int N,
                                     int C, std::vector<double>* mean = nullptr, std::vector<double>* rstd = nullptr) {
    std::vector<double> y((size_t)N * C);
    if (mean) mean->assign(N, 0.0);
    if (rstd) rstd->assign(N, 0.0);
    for (int n = 0; n < N; ++n) {
        double m = 0.0, var = 0.0;
        for (int c = 0; c < C; ++c) m += x[(size_t)n * C + c];
        m /= C;
        for (int c = 0; c < C; ++c) var += (x[(size_t)n * C + c] - m) * (x[(size_t)n * C + c] - m);
        var /= C;
        const double s = 1.0 / std::sqrt(var + eps);
        for (int c = 0; c < C; ++c)
            y[(size_t)n * C + c] = (x[(size_t)n * C + c] - m) * s * (weight ? weight[c] : 1.0) + (bias ? bias[c] : 0.0);
        if (mean) (*mean)[n] = m;
        if (rstd) (*rstd)[n] = s;
    }
    return y;
}

inline double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// d2l PositionalEncoding: P[t, 2j] = sin(t / 10000^(2j/C)), P[t, 2j+1] = cos(same); rows t0 .. t0+T-1.
inline std::vector<double> positional_encoding(int T, int C, int t0 = 0) {
    std::vector<double> P((size_t)T * C);
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < C; ++c) {
            const int pair = c - c % 2;
            const double angle = (t0 + t) / std::pow(10000.0, (double)pair / C);
            P[(size_t)t * C + c] = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    return P;
}

}  // namespace attend::reference
