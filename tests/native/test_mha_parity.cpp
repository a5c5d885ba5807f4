// MultiHeadAttention and LayerNorm against PyTorch 1.13 (fixtures from tools/fixtures_transformer.py), plus the
// seeds' MHA shape check. Metric: relative_error = max |ours - torch| / max |torch| per tensor; tolerance 1e-4
// (1e-4 relative, measured against the largest reference magnitude of each tensor).
#include "kernels/layernorm.h"
#include "model/multi_head_attention.h"
#include "train/layernorm_backward.h"
#include "train/multi_head_attention_backward.h"
#include "transformer_test_util.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace attend;
using namespace attend_test;

namespace {

constexpr double kTolerance = 1e-4;

struct MhaModel {
    ParameterStore store;
    MultiHeadAttentionParams p;
    MhaModel(int C, bool bias) {
        p = declare_multi_head_attention(store, "attn", C, bias);
        store.allocate();
    }
};

void check_grads(MhaModel& m, const SafeTensors& f, const std::string& prefix) {
    for (const auto& spec : m.store.specs()) {
        CAPTURE(spec.name);
        auto ref = f.floats(prefix + spec.name, shape64(spec.shape));
        const float* got = m.store.grad_at(spec.offset);
        if (spec.name.find("k_proj.bias") != std::string::npos) {
            // Exactly zero in exact arithmetic (a key bias shifts every score of a row equally, and softmax ignores
            // that), so both sides hold rounding noise: compare absolutely.
            for (size_t i = 0; i < spec.size; ++i) {
                CHECK(std::fabs(got[i]) < 1e-5);
                CHECK(std::fabs(ref[i]) < 1e-5);
            }
            continue;
        }
        CHECK(relative_error(got, ref.data(), spec.size) < kTolerance);
    }
}

}  // namespace

TEST_CASE("mha parity: key_padding_mask + float attn_mask, cross-attention form, vs torch (1e-4 relative)") {
    const SafeTensors f = load_fixture("transformer_mha.safetensors");
    const int B = 2, Tq = 3, Tk = 4, C = 8, H = 2;
    MhaModel m(C, true);
    load_parameters(m.store, f, "a.");
    auto q = f.floats("a.query", {B, Tq, C}), kv = f.floats("a.key_value", {B, Tk, C}),
         additive = f.floats("a.attn_mask", {Tq, Tk}), G = f.floats("a.G", {B, Tq, C});
    auto padding_ints = f.ints("a.key_padding_mask");
    std::vector<uint8_t> padding(padding_ints.begin(), padding_ints.end());
    AttnMask mask;
    mask.key_padding = padding.data();
    mask.additive = additive.data();

    Arena arena;
    plan_multi_head_attention(arena, B, Tq, Tk, C, H, true);
    arena.allocate_counted();
    MultiHeadAttentionActivations acts = plan_multi_head_attention(arena, B, Tq, Tk, C, H, true);
    std::vector<float> out(size_t(B) * Tq * C);
    const auto weights = multi_head_attention_weights(m.store, m.p);
    multi_head_attention_forward(out.data(), acts, q.data(), kv.data(), weights, mask, B, Tq, Tk, C, H);
    CHECK(relative_error(out, f.floats("a.out", {B, Tq, C})) < kTolerance);
    auto ref_weights = f.floats("a.weights", {B, H, Tq, Tk});
    CHECK(relative_error(acts.weights, ref_weights.data(), ref_weights.size()) < kTolerance);

    std::vector<float> dq(q.size(), 0.0f), dkv(kv.size(), 0.0f);
    multi_head_attention_backward(dq.data(), dkv.data(), multi_head_attention_grads(m.store, m.p), G.data(), acts,
                                  q.data(), kv.data(), weights, mask, B, Tq, Tk, C, H);
    CHECK(relative_error(dq, f.floats("a.grad.query", {B, Tq, C})) < kTolerance);
    CHECK(relative_error(dkv, f.floats("a.grad.key_value", {B, Tk, C})) < kTolerance);
    check_grads(m, f, "a.grad.");
}

TEST_CASE("mha parity: self-attention, boolean attn_mask, no bias, vs torch (1e-4 relative)") {
    const SafeTensors f = load_fixture("transformer_mha.safetensors");
    const int B = 2, T = 4, C = 8, H = 2;
    MhaModel m(C, false);
    CHECK_FALSE(m.store.contains("attn.q_proj.bias"));
    load_parameters(m.store, f, "b.");
    auto x = f.floats("b.x", {B, T, C}), G = f.floats("b.G", {B, T, C});
    auto mask_ints = f.ints("b.attn_mask");
    std::vector<uint8_t> bool_mask(mask_ints.begin(), mask_ints.end());
    AttnMask mask;
    mask.bool_mask = bool_mask.data();

    Arena arena;
    plan_multi_head_attention(arena, B, T, T, C, H, true);
    arena.allocate_counted();
    MultiHeadAttentionActivations acts = plan_multi_head_attention(arena, B, T, T, C, H, true);
    std::vector<float> out(size_t(B) * T * C);
    const auto weights = multi_head_attention_weights(m.store, m.p);
    multi_head_attention_forward(out.data(), acts, x.data(), x.data(), weights, mask, B, T, T, C, H);
    CHECK(relative_error(out, f.floats("b.out", {B, T, C})) < kTolerance);
    auto ref_weights = f.floats("b.weights", {B, H, T, T});
    CHECK(relative_error(acts.weights, ref_weights.data(), ref_weights.size()) < kTolerance);

    std::vector<float> dx(x.size(), 0.0f);
    multi_head_attention_backward(dx.data(), dx.data(), multi_head_attention_grads(m.store, m.p), G.data(), acts,
                                  x.data(), x.data(), weights, mask, B, T, T, C, H);
    CHECK(relative_error(dx, f.floats("b.grad.x", {B, T, C})) < kTolerance);
    check_grads(m, f, "b.grad.");
}

TEST_CASE("layernorm parity: forward and backward vs torch.nn.LayerNorm (1e-4 relative)") {
    const SafeTensors f = load_fixture("transformer_layernorm.safetensors");
    const int N = 6, C = 10;
    auto x = f.floats("x", {N, C}), w = f.floats("weight", {C}), b = f.floats("bias", {C}), G = f.floats("G", {N, C});
    std::vector<float> out(N * C), mean(N), rstd(N), dx(N * C, 0.0f), dw(C, 0.0f), db(C, 0.0f);
    layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 1e-5f, N, C);
    CHECK(relative_error(out, f.floats("out", {N, C})) < kTolerance);
    layernorm_backward(dx.data(), dw.data(), db.data(), G.data(), x.data(), mean.data(), rstd.data(), w.data(), N, C);
    CHECK(relative_error(dx, f.floats("grad.x", {N, C})) < kTolerance);
    CHECK(relative_error(dw, f.floats("grad.weight", {C})) < kTolerance);
    CHECK(relative_error(db, f.floats("grad.bias", {C})) < kTolerance);
}

TEST_CASE("mha: the seeds' shape check, num_hiddens 100, 5 heads, valid_lens [3, 2] -> (2, 4, 100)") {
    // Seed 000: attention(X [2,4,100], Y [2,6,100], Y, valid_lens [3,2]).shape == (2, 4, 100)
    const int B = 2, Tq = 4, Tk = 6, C = 100, H = 5;
    ParameterStore store;
    auto p = declare_multi_head_attention(store, "attention", C, false);
    store.allocate();
    Rng rng(7);
    for (size_t i = 0; i < store.size(); ++i) store.values()[i] = float(rng.uniform(-0.1, 0.1));
    std::vector<float> X(size_t(B) * Tq * C, 1.0f), Y(size_t(B) * Tk * C, 1.0f);
    const int valid_lens[B] = {3, 2};
    AttnMask mask;
    mask.valid_lens = valid_lens;
    Arena arena;
    plan_multi_head_attention(arena, B, Tq, Tk, C, H, true);
    arena.allocate_counted();
    auto acts = plan_multi_head_attention(arena, B, Tq, Tk, C, H, true);
    std::vector<float> out(size_t(B) * Tq * C, NAN);
    multi_head_attention_forward(out.data(), acts, X.data(), Y.data(), multi_head_attention_weights(store, p), mask, B,
                                 Tq, Tk, C, H);
    CHECK(out.size() == size_t(2 * 4 * 100));
    for (float v : out) REQUIRE(std::isfinite(v));
    // Keys beyond each row's valid length get zero weight; the rest sum to 1.
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < Tq; ++i) {
                const float* w = acts.weights + ((size_t(b) * H + h) * Tq + i) * Tk;
                double sum = 0;
                for (int j = 0; j < Tk; ++j) {
                    if (j >= valid_lens[b]) CHECK(w[j] == 0.0f);
                    sum += w[j];
                }
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
            }
}
