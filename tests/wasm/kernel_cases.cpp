// Runs the core kernels on fixed cases and prints one line per case: `<case_name> <n> <v0> <v1> ...` (%.9g).
// Compiled natively (build*/bin/kernel_cases) and by Emscripten (wasm/dist/kernel_cases_{simd,nosimd}.cjs);
// tests/wasm/kernels.test.mjs runs all three and compares. Inputs come from a tiny xorshift generator, not
// <random> distributions (whose output differs between standard libraries), so every build sees the same
// floats. Only finite values are printed (the Node test requires it): log-sum-exps of fully masked rows are
// not printed.
#include "error.h"
#include "io/safetensors.h"  // float_to_half, half_to_float
#include "kernels/activations.h"
#include "kernels/additive_attention.h"
#include "kernels/attention.h"
#include "kernels/embedding.h"
#include "kernels/layernorm.h"
#include "kernels/linear_rows.h"
#include "kernels/masked_softmax.h"
#include "kernels/positional_encoding.h"
#include "kernels/simd.h"
#include "kernels/softmax.h"
#include "kernels/topk.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

using namespace attend;

namespace {

struct Rng {
    uint32_t state;
    explicit Rng(uint32_t seed) : state(seed ? seed : 1) {}
    uint32_t next() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    }
    // Uniform in [lo, hi), from the top 24 bits (exact in float).
    float uniform(float lo = -1.0f, float hi = 1.0f) { return lo + (hi - lo) * (float)(next() >> 8) * (1.0f / 16777216.0f); }
    int integer(int n) { return (int)(next() % (uint32_t)n); }  // [0, n)
    std::vector<float> floats(size_t n, float lo = -1.0f, float hi = 1.0f) {
        std::vector<float> x(n);
        for (auto& v : x) v = uniform(lo, hi);
        return x;
    }
};

void print_case(const std::string& name, const float* x, size_t n) {
    std::printf("%s %zu", name.c_str(), n);
    for (size_t i = 0; i < n; ++i) std::printf(" %.9g", x[i]);
    std::printf("\n");
}
void print_case(const std::string& name, const std::vector<float>& x) { print_case(name, x.data(), x.size()); }

enum : unsigned { kValid = 1, kValidPerQuery = 2, kPadding = 4, kCausal = 8, kBool = 16, kAdditive = 32, kPerHead = 64 };

struct OwnedMask {
    std::vector<int> valid;
    std::vector<uint8_t> padding, bool_mask;
    std::vector<float> additive;
    AttnMask mask;
};

OwnedMask make_mask(Rng& rng, unsigned kinds, int B, int H, int Tq, int Tk) {
    OwnedMask m;
    if (kinds & (kValid | kValidPerQuery)) {
        m.valid.resize((kinds & kValidPerQuery) ? (size_t)B * Tq : B);
        for (auto& v : m.valid) v = rng.integer(Tk + 1);
        m.valid[0] = 0;  // a fully masked row
        m.mask.valid_lens = m.valid.data();
        m.mask.valid_lens_per_query = (kinds & kValidPerQuery) != 0;
    }
    if (kinds & kPadding) {
        m.padding.resize((size_t)B * Tk);
        for (auto& v : m.padding) v = rng.integer(3) == 0;
        m.mask.key_padding = m.padding.data();
    }
    if (kinds & kCausal) {
        m.mask.causal = true;
        m.mask.causal_offset = Tk - Tq;
    }
    const size_t planes = (kinds & kPerHead) ? (size_t)B * H : 1;
    m.mask.attn_mask_per_head = (kinds & kPerHead) != 0;
    if (kinds & kBool) {
        m.bool_mask.resize(planes * Tq * Tk);
        for (auto& v : m.bool_mask) v = rng.integer(3) == 0;
        m.mask.bool_mask = m.bool_mask.data();
    }
    if (kinds & kAdditive) {
        m.additive = rng.floats(planes * Tq * Tk, -2.0f, 2.0f);
        for (auto& v : m.additive)
            if (rng.integer(4) == 0) v = -std::numeric_limits<float>::infinity();
        m.mask.additive = m.additive.data();
    }
    return m;
}

const unsigned kMaskCombos[] = {0, kValid, kValidPerQuery, kPadding, kCausal, kBool, kAdditive | kPerHead,
                                kPadding | kBool, kPadding | kAdditive, kValid | kCausal | kBool | kAdditive};

void softmax_cases(Rng& rng) {
    for (int C : {1, 3, 7, 16, 17, 33, 100}) {
        const int N = 3;
        auto x = rng.floats((size_t)N * C, -8.0f, 8.0f);
        std::vector<float> y(x.size());
        softmax_forward(y.data(), x.data(), N, C);
        print_case("softmax_c" + std::to_string(C), y);
        log_softmax_forward(y.data(), x.data(), N, C);
        print_case("log_softmax_c" + std::to_string(C), y);
    }
    std::vector<float> big = {1e4f, 1e4f - 0.5f, -1e4f, 1e4f - 3.0f, -1e4f + 1.0f, 9999.0f, 1e4f, -1e4f, 0.0f};
    std::vector<float> y(big.size());
    softmax_forward(y.data(), big.data(), 1, (int)big.size());
    print_case("softmax_pm1e4", y);
    log_softmax_forward(y.data(), big.data(), 1, (int)big.size());
    print_case("log_softmax_pm1e4", y);
    std::vector<float> all_inf(17, -std::numeric_limits<float>::infinity()), z(17);
    softmax_forward(z.data(), all_inf.data(), 1, 17);
    print_case("softmax_all_masked", z);
    // The vector exp itself (WebAssembly has its own, simd.h) over float's whole finite range and its edges;
    // exp(-100) underflows to 0 and is printed as such.
    std::vector<float> args = rng.floats(395, -87.0f, 88.0f);
    for (float edge : {-100.0f, -88.5f, -87.9f, -1e-7f, 0.0f, 1e-7f, 0.693147f, 88.0f}) args.push_back(edge);
    std::vector<float> e(args.size());
    const int n = (int)args.size(), nv = simd::vector_part(n);
    for (int i = 0; i < nv; i += simd::kWidth) simd::store(e.data() + i, simd::exp(simd::load(args.data() + i)));
    simd::store_partial(e.data() + nv, simd::exp(simd::load_partial(args.data() + nv, n - nv, 0.0f)), n - nv);
    print_case("simd_exp", e);
    // The vector tanh (WebAssembly has its own over that exp, simd.h): both sides of its polynomial's edge at 5/8,
    // signed zeros, tiny and saturated arguments.
    std::vector<float> targs = rng.floats(390, -6.0f, 6.0f);
    for (float edge : {-100.0f, -9.0f, -0.625f, -0.62499f, -1e-30f, -0.0f, 0.0f, 1e-30f, 0.62499f, 0.625f, 9.0f, 100.0f})
        targs.push_back(edge);
    std::vector<float> th(targs.size());
    const int tn = (int)targs.size(), tnv = simd::vector_part(tn);
    for (int i = 0; i < tnv; i += simd::kWidth) simd::store(th.data() + i, simd::tanh(simd::load(targs.data() + i)));
    simd::store_partial(th.data() + tnv, simd::tanh(simd::load_partial(targs.data() + tnv, tn - tnv, 0.0f)), tn - tnv);
    print_case("simd_tanh", th);
}

void masked_softmax_cases(Rng& rng) {
    const int B = 2, H = 3, Tq = 5, Tk = 19;
    for (unsigned kinds : kMaskCombos) {
        auto owned = make_mask(rng, kinds, B, H, Tq, Tk);
        auto x = rng.floats((size_t)B * H * Tq * Tk, -5.0f, 5.0f);
        std::vector<float> y(x.size());
        masked_softmax_forward(y.data(), x.data(), owned.mask, B, H, Tq, Tk);
        print_case("masked_softmax_mask" + std::to_string(kinds), y);
    }
    // d2l's example shape: masked_softmax(rand(2, 2, 4), [2, 3])
    std::vector<int> valid = {2, 3};
    AttnMask mask;
    mask.valid_lens = valid.data();
    auto x = rng.floats(16, 0.0f, 1.0f);
    std::vector<float> y(16);
    masked_softmax_forward(y.data(), x.data(), mask, 2, 1, 2, 4);
    print_case("masked_softmax_d2l_valid_2_3", y);
    std::vector<float> big(2 * 19);
    for (int j = 0; j < 2 * 19; ++j) big[j] = (j % 3 == 0 ? 1e4f : -1e4f) + 0.5f * (j % 5);
    std::vector<float> yb(big.size());
    masked_softmax_forward(yb.data(), big.data(), mask, 2, 1, 1, 19);
    print_case("masked_softmax_pm1e4", yb);
}

void attention_case(Rng& rng, const std::string& name, int B, int H, int Tq, int Tk, int D, unsigned kinds,
                    float scale = 0.0f) {
    auto owned = make_mask(rng, kinds, B, H, Tq, Tk);
    auto q = rng.floats((size_t)B * H * Tq * D), k = rng.floats((size_t)B * H * Tk * D), v = rng.floats(k.size());
    std::vector<float> out(q.size()), probs((size_t)B * H * Tq * Tk), lse((size_t)B * H * Tq);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), owned.mask, B, H, Tq, Tk, D, scale,
                      lse.data());
    print_case(name + "_out", out);
    print_case(name + "_probs", probs);
    std::vector<float> finite_lse;
    for (float x : lse)
        if (std::isfinite(x)) finite_lse.push_back(x);
    print_case(name + "_lse_finite", finite_lse);
}

void attention_cases(Rng& rng) {
    attention_case(rng, "attention_t1_d1", 1, 1, 1, 1, 1, 0);
    attention_case(rng, "attention_b2h3_q3k7_d1", 2, 3, 3, 7, 1, 0);
    for (unsigned kinds : kMaskCombos)
        attention_case(rng, "attention_b2h2_q7k17_d17_mask" + std::to_string(kinds), 2, 2, 7, 17, 17, kinds);
    attention_case(rng, "attention_tiles_q70k300_d9", 1, 2, 70, 300, 9, 0);
    attention_case(rng, "attention_tiles_causal_q130k300_d9", 1, 1, 130, 300, 9, kCausal | kPadding);
    attention_case(rng, "attention_decode_step_causal", 2, 4, 1, 9, 8, kCausal | kPadding);
    attention_case(rng, "attention_d64_scale1", 1, 2, 33, 65, 64, 0, 1.0f);

    // +-1e4 logits: q = (+-100, 0, 0), keys with first coordinate in steps of 0.5 (exact scores).
    const int Tk = 37, D = 3;
    std::vector<float> q = {100.0f, 0.0f, 0.0f, -100.0f, 0.0f, 0.0f}, k(Tk * D, 0.0f);
    for (int j = 0; j < Tk; ++j) k[j * D] = (j % 2 ? 1.0f : -1.0f) * (100.0f - 0.5f * (j % 7));
    auto v = rng.floats(Tk * D);
    std::vector<float> out(2 * D), probs(2 * Tk);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), AttnMask{}, 1, 1, 2, Tk, D, 1.0f);
    print_case("attention_pm1e4_out", out);
    print_case("attention_pm1e4_probs", probs);
}

void additive_attention_cases(Rng& rng) {
    struct Shape { int B, Tq, Tk, Hd, Dv; };
    int index = 0;
    for (Shape s : {Shape{1, 1, 1, 1, 1}, Shape{2, 1, 7, 3, 5}, Shape{3, 4, 17, 8, 4}, Shape{2, 3, 33, 17, 7}}) {
        for (unsigned kinds : {0u, (unsigned)kValid, (unsigned)(kPadding | kAdditive)}) {
            auto owned = make_mask(rng, kinds, s.B, 1, s.Tq, s.Tk);
            auto qp = rng.floats((size_t)s.B * s.Tq * s.Hd, -2.0f, 2.0f), kp = rng.floats((size_t)s.B * s.Tk * s.Hd, -2.0f, 2.0f);
            auto wv = rng.floats(s.Hd), values = rng.floats((size_t)s.B * s.Tk * s.Dv);
            std::vector<float> out((size_t)s.B * s.Tq * s.Dv), probs((size_t)s.B * s.Tq * s.Tk);
            additive_attention_forward(out.data(), probs.data(), qp.data(), kp.data(), wv.data(), values.data(),
                                       owned.mask, s.B, s.Tq, s.Tk, s.Hd, s.Dv);
            const std::string name = "additive_attention_" + std::to_string(index++) + "_mask" + std::to_string(kinds);
            print_case(name + "_out", out);
            print_case(name + "_probs", probs);
        }
    }
}

void seed_cases(Rng& rng) {
    // Seed 000 (d2l): keys ones(2,10,2), values arange(40) reshaped (1,10,4) twice, valid_lens [2, 6].
    const int B = 2, Tk = 10, Hd = 8, Dv = 4;
    std::vector<float> values(B * Tk * Dv);
    for (int b = 0; b < B; ++b)
        for (int x = 0; x < Tk * Dv; ++x) values[b * Tk * Dv + x] = (float)x;
    std::vector<int> valid = {2, 6};
    AttnMask mask;
    mask.valid_lens = valid.data();
    // Additive: projected queries arbitrary, projected keys all equal (keys are equal).
    auto qp = rng.floats(B * Hd);
    std::vector<float> kp(B * Tk * Hd);
    auto key_row = rng.floats(Hd);
    for (int r = 0; r < B * Tk; ++r)
        for (int c = 0; c < Hd; ++c) kp[r * Hd + c] = key_row[c];
    auto wv = rng.floats(Hd);
    std::vector<float> out(B * Dv), probs(B * Tk);
    additive_attention_forward(out.data(), probs.data(), qp.data(), kp.data(), wv.data(), values.data(), mask, B, 1,
                               Tk, Hd, Dv);
    print_case("seed000_additive_out", out);
    // Dot product with q, k padded from 2 to 4 dims with zeros, d2l's scale 1/sqrt(2).
    std::vector<float> q(B * Dv, 0.0f), k(B * Tk * Dv, 0.0f);
    for (int b = 0; b < B; ++b) {
        q[b * Dv] = rng.uniform();
        q[b * Dv + 1] = rng.uniform();
        for (int j = 0; j < Tk; ++j) k[(b * Tk + j) * Dv] = k[(b * Tk + j) * Dv + 1] = 1.0f;
    }
    attention_forward(out.data(), probs.data(), q.data(), k.data(), values.data(), mask, B, 1, 1, Tk, Dv,
                      1.0f / std::sqrt(2.0f));
    print_case("seed000_dot_product_out", out);
    // Seed 003 worked step: s = [0.6, 0.4], unscaled dot product with h.
    std::vector<float> s = {0.6f, 0.4f}, h = {0.9f, 0.1f, 0.7f, 0.3f, 0.2f, 0.8f, 0.1f, 0.9f}, c(2), alpha(4);
    attention_forward(c.data(), alpha.data(), s.data(), h.data(), h.data(), AttnMask{}, 1, 1, 1, 4, 2, 1.0f);
    print_case("seed003_weights", alpha);
    print_case("seed003_context", c);
}

// The decoder's few-row product from half-float weights against the same weights as floats: every difference
// must be exactly 0 (the half-float path reads fewer bytes, never other values). The weights include half
// subnormals and both signs of zero.
void linear_rows_cases(Rng& rng) {
    const int IC = 40, OC = 37;
    std::vector<uint16_t> halves((size_t)IC * OC);
    for (auto& h : halves) h = (uint16_t)(float_to_half(rng.uniform(-0.5f, 0.5f)));
    for (size_t i = 0; i < halves.size(); i += 7) halves[i] = (uint16_t)(rng.next() & 0x83FF);  // subnormals, +-0
    std::vector<float> weights(halves.size());
    for (size_t i = 0; i < halves.size(); ++i) weights[i] = half_to_float(halves[i]);
    auto bias = rng.floats(OC);
    for (int N : {1, 3}) {
        auto x = rng.floats((size_t)N * IC, -4.0f, 4.0f);
        std::vector<float> from_floats((size_t)N * OC), from_halves((size_t)N * OC);
        linear_rows_forward(from_floats.data(), x.data(), weights.data(), bias.data(), N, IC, OC);
        linear_rows_forward_f16(from_halves.data(), x.data(), halves.data(), bias.data(), N, IC, OC);
        print_case("linear_rows_n" + std::to_string(N), from_floats);
        for (size_t i = 0; i < from_floats.size(); ++i) from_halves[i] -= from_floats[i];
        print_case("linear_rows_f16_minus_f32_n" + std::to_string(N), from_halves);
    }
}

void elementwise_cases(Rng& rng) {
    for (int C : {1, 7, 17, 256}) {
        const int N = 3;
        auto x = rng.floats((size_t)N * C, -3.0f, 5.0f), w = rng.floats(C, 0.5f, 1.5f), b = rng.floats(C);
        std::vector<float> y(x.size()), mean(N), rstd(N);
        layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 1e-5f, N, C);
        print_case("layernorm_c" + std::to_string(C), y);
        print_case("layernorm_mean_c" + std::to_string(C), mean);
        print_case("layernorm_rstd_c" + std::to_string(C), rstd);
    }
    for (int n : {1, 7, 33}) {
        auto x = rng.floats(n, -6.0f, 6.0f), b = rng.floats(n);
        std::vector<float> y(n);
        relu_forward(y.data(), x.data(), n);
        print_case("relu_n" + std::to_string(n), y);
        gelu_forward(y.data(), x.data(), n);
        print_case("gelu_n" + std::to_string(n), y);
        residual_forward(y.data(), x.data(), b.data(), n);
        print_case("residual_n" + std::to_string(n), y);
    }
    const int V = 11, C = 19;
    auto table = rng.floats(V * C);
    std::vector<int> ids = {3, 0, 10, 3, 7};
    std::vector<float> emb(ids.size() * C);
    embedding_forward(emb.data(), ids.data(), table.data(), std::sqrt((float)C), (int)ids.size(), C, V);
    print_case("embedding", emb);
    std::vector<int> bad = {2, 11};
    float rejected = 0.0f;
    try {
        embedding_forward(emb.data(), bad.data(), table.data(), 1.0f, 2, C, V);
    } catch (const Error&) {
        rejected = 1.0f;
    }
    print_case("embedding_bad_id_rejected", &rejected, 1);
    for (int Cp : {1, 7, 32}) {
        std::vector<float> P(50 * Cp);
        positional_encoding_table(P.data(), 50, Cp);
        print_case("positional_encoding_c" + std::to_string(Cp), P);
    }
    auto x = rng.floats(2 * 3 * 6);
    positional_encoding_add(x.data(), 2, 3, 6, 5);
    print_case("positional_encoding_add_t0_5", x);
    auto scores = rng.floats(1000);
    scores[10] = scores[20] = 2.0f;  // a tie at the top
    std::vector<int> idx(8);
    std::vector<float> val(8);
    topk(idx.data(), val.data(), scores.data(), 1000, 8);
    std::vector<float> as_float(idx.begin(), idx.end());
    as_float.push_back((float)argmax(scores.data(), 1000));
    print_case("topk_indices_then_argmax", as_float);
    print_case("topk_values", val);
}

}  // namespace

int main() {
#ifdef __EMSCRIPTEN__
    // Node gives a piped stdout non-blocking mode; Emscripten's synchronous writes then fail with EAGAIN once
    // the pipe is full and the rest of a line is silently lost. Blocking writes keep every value.
    EM_ASM({
        if (typeof process !== 'undefined' && process.stdout && process.stdout._handle &&
            process.stdout._handle.setBlocking)
            process.stdout._handle.setBlocking(true);
    });
#endif
    Rng rng(20240611u);
    softmax_cases(rng);
    linear_rows_cases(rng);
    masked_softmax_cases(rng);
    attention_cases(rng);
    additive_attention_cases(rng);
    seed_cases(rng);
    elementwise_cases(rng);
    return 0;
}
