// Backward kernels of native/train against central differences of double-precision reference forwards kept
// here. Loss = sum(out * G) for a fixed random G, so dout = G. Metric: relative_error (transformer_test_util.h),
// max abs error / max abs reference; tolerance 1e-4 unless stated (float backward vs exact double gradient).
#include "kernels/attention.h"
#include "train/activations_backward.h"
#include "train/attention_backward.h"
#include "train/embedding_backward.h"
#include "train/layernorm_backward.h"
#include "train/softmax_backward.h"
#include "error.h"
#include "transformer_test_util.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace attend;
using namespace attend_test;

namespace {

void layernorm_reference(std::vector<double>& y, std::vector<double>& mean, std::vector<double>& rstd,
                         const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& b,
                         double eps, int N, int C) {
    y.assign(size_t(N) * C, 0.0);
    mean.assign(N, 0.0);
    rstd.assign(N, 0.0);
    for (int n = 0; n < N; ++n) {
        double m = 0, v = 0;
        for (int c = 0; c < C; ++c) m += x[n * C + c];
        m /= C;
        for (int c = 0; c < C; ++c) v += (x[n * C + c] - m) * (x[n * C + c] - m);
        v /= C;
        mean[n] = m;
        rstd[n] = 1.0 / std::sqrt(v + eps);
        for (int c = 0; c < C; ++c) y[n * C + c] = (x[n * C + c] - m) * rstd[n] * w[c] + b[c];
    }
}

}  // namespace

TEST_CASE("layernorm_backward: dx, dweight, dbias match central differences (1e-4 relative)") {
    const int N = 4, C = 19;
    const double eps = 1e-5;
    Rng rng(11);
    auto x = random_floats(N * C, rng, 2.0), w = random_floats(C, rng), b = random_floats(C, rng),
         g = random_floats(N * C, rng);
    auto xd = to_double(x), wd = to_double(w), bd = to_double(b), gd = to_double(g);
    std::vector<double> y, mean, rstd;
    layernorm_reference(y, mean, rstd, xd, wd, bd, eps, N, C);
    std::vector<float> meanf(mean.begin(), mean.end()), rstdf(rstd.begin(), rstd.end());
    std::vector<float> dx(N * C, 0.0f), dw(C, 0.0f), db(C, 0.0f);
    layernorm_backward(dx.data(), dw.data(), db.data(), g.data(), x.data(), meanf.data(), rstdf.data(), w.data(), N, C);
    auto loss = [&] {
        std::vector<double> yy, mm, rr;
        layernorm_reference(yy, mm, rr, xd, wd, bd, eps, N, C);
        return dot(yy, gd);
    };
    CHECK(relative_error(dx, numerical_gradient(loss, xd)) < 1e-4);
    CHECK(relative_error(dw, numerical_gradient(loss, wd)) < 1e-4);
    CHECK(relative_error(db, numerical_gradient(loss, bd)) < 1e-4);
}

TEST_CASE("softmax_backward and log_softmax_backward match central differences (1e-4 relative)") {
    const int N = 3, C = 21;
    Rng rng(12);
    auto x = random_floats(N * C, rng, 3.0), g = random_floats(N * C, rng);
    auto xd = to_double(x), gd = to_double(g);
    auto forward = [&](bool log) {
        std::vector<double> y(N * C);
        for (int n = 0; n < N; ++n) {
            double m = -1e300, s = 0;
            for (int c = 0; c < C; ++c) m = std::max(m, xd[n * C + c]);
            for (int c = 0; c < C; ++c) s += std::exp(xd[n * C + c] - m);
            for (int c = 0; c < C; ++c)
                y[n * C + c] = log ? xd[n * C + c] - m - std::log(s) : std::exp(xd[n * C + c] - m) / s;
        }
        return y;
    };
    for (bool log : {false, true}) {
        CAPTURE(log);
        auto y = forward(log);
        std::vector<float> yf(y.begin(), y.end()), dx(N * C, 0.25f);
        if (log)
            log_softmax_backward(dx.data(), g.data(), yf.data(), N, C);
        else
            softmax_backward(dx.data(), g.data(), yf.data(), N, C);
        auto num = numerical_gradient([&] { return dot(forward(log), gd); }, xd);
        for (auto& v : num) v += 0.25;  // accumulated onto the initial 0.25
        CHECK(relative_error(dx, num) < 1e-4);
    }
}

TEST_CASE("relu, gelu and residual backward match central differences (1e-4 relative)") {
    const int n = 37;
    Rng rng(13);
    auto x = random_floats(n, rng, 3.0), g = random_floats(n, rng);
    for (auto& v : x)
        if (std::fabs(v) < 1e-3f) v = 0.5f;  // keep central differences away from relu's kink
    auto xd = to_double(x), gd = to_double(g);
    std::vector<float> dx(n, 0.0f);
    relu_backward(dx.data(), g.data(), x.data(), n);
    auto relu_loss = [&] {
        double s = 0;
        for (int i = 0; i < n; ++i) s += std::max(xd[i], 0.0) * gd[i];
        return s;
    };
    CHECK(relative_error(dx, numerical_gradient(relu_loss, xd)) < 1e-4);

    std::fill(dx.begin(), dx.end(), 0.0f);
    gelu_backward(dx.data(), g.data(), x.data(), n);
    auto gelu_loss = [&] {
        double s = 0;
        for (int i = 0; i < n; ++i) s += 0.5 * xd[i] * (1 + std::erf(xd[i] / std::sqrt(2.0))) * gd[i];
        return s;
    };
    CHECK(relative_error(dx, numerical_gradient(gelu_loss, xd)) < 1e-4);

    std::vector<float> da(n, 1.0f), db(n, -1.0f);
    residual_backward(da.data(), db.data(), g.data(), n);
    for (int i = 0; i < n; ++i) {
        CHECK(da[i] == doctest::Approx(1.0f + g[i]));
        CHECK(db[i] == doctest::Approx(-1.0f + g[i]));
    }
}

TEST_CASE("embedding_backward: accumulates scaled rows, repeated ids add, padding index gets nothing") {
    const int V = 6, C = 5, N = 5, pad = 0;
    const int ids[N] = {3, 0, 3, 5, 1};
    Rng rng(14);
    auto g = random_floats(N * C, rng);
    std::vector<float> dtable(V * C, 1.0f);
    const float scale = 2.0f;
    embedding_backward(dtable.data(), g.data(), ids, scale, pad, N, C, V);
    std::vector<double> ref(V * C, 1.0);
    for (int n = 0; n < N; ++n)
        if (ids[n] != pad)
            for (int c = 0; c < C; ++c) ref[ids[n] * C + c] += scale * g[n * C + c];
    CHECK(relative_error(dtable, ref) < 1e-6);
    for (int c = 0; c < C; ++c) CHECK(dtable[pad * C + c] == 1.0f);
    const int bad[1] = {6};
    CHECK_THROWS_AS(embedding_backward(dtable.data(), g.data(), bad, scale, pad, 1, C, V), Error);
}

namespace {

// Double reference of attention_forward with every mask kind of AttnMask; a fully masked row gives zeros.
struct AttentionCase {
    int B = 2, H = 2, Tq = 5, Tk = 6, D = 4;
    std::vector<int> valid_lens;
    bool per_query = false;
    std::vector<uint8_t> key_padding, bool_mask;
    std::vector<float> additive;
    bool per_head = false;
    bool causal = false;
    int causal_offset = 0;

    AttnMask mask() const {
        AttnMask m;
        m.valid_lens = valid_lens.empty() ? nullptr : valid_lens.data();
        m.valid_lens_per_query = per_query;
        m.key_padding = key_padding.empty() ? nullptr : key_padding.data();
        m.bool_mask = bool_mask.empty() ? nullptr : bool_mask.data();
        m.additive = additive.empty() ? nullptr : additive.data();
        m.attn_mask_per_head = per_head;
        m.causal = causal;
        m.causal_offset = causal_offset;
        return m;
    }

    bool masked(int b, int h, int i, int j) const {
        if (!valid_lens.empty() && j >= valid_lens[per_query ? b * Tq + i : b]) return true;
        if (!key_padding.empty() && key_padding[b * Tk + j]) return true;
        if (causal && j > i + causal_offset) return true;
        const size_t m = per_head ? ((size_t(b) * H + h) * Tq + i) * Tk + j : size_t(i) * Tk + j;
        if (!bool_mask.empty() && bool_mask[m]) return true;
        if (!additive.empty() && std::isinf(additive[m])) return true;
        return false;
    }

    std::vector<double> forward(const std::vector<double>& q, const std::vector<double>& k,
                                const std::vector<double>& v) const {
        std::vector<double> out(size_t(B) * H * Tq * D, 0.0), s(Tk);
        const double scale = 1.0 / std::sqrt(double(D));
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < H; ++h)
                for (int i = 0; i < Tq; ++i) {
                    const size_t bh = size_t(b) * H + h;
                    double mx = -1e300;
                    bool any = false;
                    for (int j = 0; j < Tk; ++j) {
                        if (masked(b, h, i, j)) continue;
                        double dotp = 0;
                        for (int d = 0; d < D; ++d) dotp += q[(bh * Tq + i) * D + d] * k[(bh * Tk + j) * D + d];
                        s[j] = dotp * scale;
                        if (!additive.empty()) s[j] += additive[per_head ? (bh * Tq + i) * Tk + j : size_t(i) * Tk + j];
                        mx = std::max(mx, s[j]);
                        any = true;
                    }
                    if (!any) continue;
                    double sum = 0;
                    for (int j = 0; j < Tk; ++j)
                        if (!masked(b, h, i, j)) sum += std::exp(s[j] - mx);
                    for (int j = 0; j < Tk; ++j) {
                        if (masked(b, h, i, j)) continue;
                        const double p = std::exp(s[j] - mx) / sum;
                        for (int d = 0; d < D; ++d) out[(bh * Tq + i) * D + d] += p * v[(bh * Tk + j) * D + d];
                    }
                }
        return out;
    }
};

void check_attention_backward(const AttentionCase& c, uint64_t seed) {
    Rng rng(seed);
    const size_t nq = size_t(c.B) * c.H * c.Tq * c.D, nk = size_t(c.B) * c.H * c.Tk * c.D;
    auto q = random_floats(nq, rng), k = random_floats(nk, rng), v = random_floats(nk, rng), g = random_floats(nq, rng);
    std::vector<float> out(nq), lse(size_t(c.B) * c.H * c.Tq);
    const AttnMask mask = c.mask();
    attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), mask, c.B, c.H, c.Tq, c.Tk, c.D, 0.0f,
                      lse.data());
    auto qd = to_double(q), kd = to_double(k), vd = to_double(v), gd = to_double(g);
    REQUIRE(relative_error(out, c.forward(qd, kd, vd)) < 1e-5);

    std::vector<float> dq(nq, 0.0f), dk(nk, 0.0f), dv(nk, 0.0f);
    attention_backward(dq.data(), dk.data(), dv.data(), g.data(), q.data(), k.data(), v.data(), out.data(), lse.data(),
                       mask, c.B, c.H, c.Tq, c.Tk, c.D);
    auto loss = [&] { return dot(c.forward(qd, kd, vd), gd); };
    CHECK(relative_error(dq, numerical_gradient(loss, qd)) < 1e-4);
    CHECK(relative_error(dk, numerical_gradient(loss, kd)) < 1e-4);
    CHECK(relative_error(dv, numerical_gradient(loss, vd)) < 1e-4);
    for (float x : dq) CHECK(std::isfinite(x));
}

}  // namespace

TEST_CASE("attention_backward with dropout on the weights matches central differences (1e-4 relative)") {
    // out = dropout(P) V with the counter-based mask; the double reference applies the same keep decisions.
    AttentionCase c;
    c.valid_lens = {4, 6};
    c.causal = true;
    c.causal_offset = 1;
    Dropout dropout{0.3f, 99, 17};
    Rng rng(31);
    const size_t nq = size_t(c.B) * c.H * c.Tq * c.D, nk = size_t(c.B) * c.H * c.Tk * c.D;
    auto q = random_floats(nq, rng), k = random_floats(nk, rng), v = random_floats(nk, rng), g = random_floats(nq, rng);
    const AttnMask mask = c.mask();
    std::vector<float> out(nq), lse(size_t(c.B) * c.H * c.Tq), probs(size_t(c.B) * c.H * c.Tq * c.Tk);
    attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), mask, c.B, c.H, c.Tq, c.Tk, c.D, 0.0f,
                      lse.data());
    auto qd = to_double(q), kd = to_double(k), vd = to_double(v), gd = to_double(g);
    auto forward = [&] {
        std::vector<double> o(nq, 0.0);
        const double scale = 1.0 / std::sqrt(double(c.D));
        for (int bh = 0; bh < c.B * c.H; ++bh)
            for (int i = 0; i < c.Tq; ++i) {
                const int b = bh / c.H, h = bh % c.H;
                std::vector<double> s(c.Tk, 0.0);
                double mx = -1e300;
                for (int j = 0; j < c.Tk; ++j) {
                    if (c.masked(b, h, i, j)) continue;
                    for (int d = 0; d < c.D; ++d)
                        s[j] += qd[(size_t(bh) * c.Tq + i) * c.D + d] * kd[(size_t(bh) * c.Tk + j) * c.D + d];
                    s[j] *= scale;
                    mx = std::max(mx, s[j]);
                }
                double sum = 0;
                for (int j = 0; j < c.Tk; ++j)
                    if (!c.masked(b, h, i, j)) sum += std::exp(s[j] - mx);
                for (int j = 0; j < c.Tk; ++j) {
                    if (c.masked(b, h, i, j)) continue;
                    const uint64_t index = (uint64_t(bh) * c.Tq + i) * c.Tk + j;
                    const double p = std::exp(s[j] - mx) / sum * (dropout.keep(index) ? 1.0 / (1.0 - 0.3f) : 0.0);
                    for (int d = 0; d < c.D; ++d)
                        o[(size_t(bh) * c.Tq + i) * c.D + d] += p * vd[(size_t(bh) * c.Tk + j) * c.D + d];
                }
            }
        return o;
    };
    int dropped = 0;
    for (size_t i = 0; i < probs.size(); ++i) dropped += probs[i] > 0 && !dropout.keep(i);
    CHECK(dropped > 5);  // the test exercises dropped weights
    std::vector<float> dq(nq, 0.0f), dk(nk, 0.0f), dv(nk, 0.0f);
    attention_backward(dq.data(), dk.data(), dv.data(), g.data(), q.data(), k.data(), v.data(), nullptr, lse.data(),
                       mask, c.B, c.H, c.Tq, c.Tk, c.D, 0.0f, &dropout);
    auto loss = [&] { return dot(forward(), gd); };
    CHECK(relative_error(dq, numerical_gradient(loss, qd)) < 1e-4);
    CHECK(relative_error(dk, numerical_gradient(loss, kd)) < 1e-4);
    CHECK(relative_error(dv, numerical_gradient(loss, vd)) < 1e-4);
}

TEST_CASE("attention_backward: no mask, valid_lens, per-query valid_lens, key padding, causal, bool and additive") {
    SUBCASE("no mask") {
        check_attention_backward(AttentionCase{}, 21);
    }
    SUBCASE("valid_lens per batch row, one row fully masked (zero gradient, no NaN)") {
        AttentionCase c;
        c.valid_lens = {4, 0};
        check_attention_backward(c, 22);
    }
    SUBCASE("valid_lens per query") {
        AttentionCase c;
        c.valid_lens = {1, 2, 3, 4, 5, 6, 0, 2, 6, 3};
        c.per_query = true;
        check_attention_backward(c, 23);
    }
    SUBCASE("key padding + causal with offset") {
        AttentionCase c;
        c.key_padding = {0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0};
        c.causal = true;
        c.causal_offset = 1;
        check_attention_backward(c, 24);
    }
    for (bool per_head : {false, true}) {
        // attn_mask_per_head applies to both masks: [Tq,Tk] broadcast, or [B*H,Tq,Tk].
        SUBCASE(per_head ? "bool and additive attn_mask per head [B*H,Tq,Tk]" : "bool and additive attn_mask [Tq,Tk]") {
            AttentionCase c;
            Rng rng(5 + per_head);
            const size_t planes = per_head ? size_t(c.B) * c.H : 1;
            c.bool_mask.resize(planes * c.Tq * c.Tk);
            for (auto& m : c.bool_mask) m = rng.integer(4) == 0;
            c.bool_mask[0] = 0;
            c.additive.resize(planes * c.Tq * c.Tk);
            for (auto& a : c.additive) a = float(rng.uniform(-2, 2));
            c.additive[3] = -std::numeric_limits<float>::infinity();
            c.per_head = per_head;
            check_attention_backward(c, 25 + per_head);
        }
    }
}
