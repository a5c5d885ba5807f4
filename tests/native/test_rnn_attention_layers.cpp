// d2l AdditiveAttention / DotProductAttention layers: the seeds' examples, and backward vs central differences of a
// double-precision reference kept here.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "gradcheck.h"
#include "kernels/attn_mask.h"
#include "model/additive_attention_layer.h"
#include "model/dot_product_attention_layer.h"
#include "train/attention_layers_backward.h"

using namespace attend;

namespace {

// d2l masked_softmax over one row with valid length n (masked scores become -1e6).
void reference_masked_softmax(double* row, int Tk, int valid) {
    double m = -INFINITY;
    for (int j = 0; j < Tk; ++j) {
        if (j >= valid) row[j] = -1e6;
        m = std::max(m, row[j]);
    }
    double s = 0;
    for (int j = 0; j < Tk; ++j) s += (row[j] = std::exp(row[j] - m));
    for (int j = 0; j < Tk; ++j) row[j] /= s;
}

// keep: dropout multipliers per weight (0 or 1/(1-p)), or empty.
std::vector<double> reference_attention(const std::vector<double>& scores_in, const std::vector<double>& values,
                                        const std::vector<int>& valid, const std::vector<double>& keep, int B, int Tq,
                                        int Tk, int Dv) {
    std::vector<double> scores = scores_in, out(size_t(B) * Tq * Dv, 0.0);
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < Tq; ++i) {
            double* row = scores.data() + (size_t(b) * Tq + i) * Tk;
            reference_masked_softmax(row, Tk, valid[b]);
            for (int j = 0; j < Tk; ++j) {
                const double w = row[j] * (keep.empty() ? 1.0 : keep[(size_t(b) * Tq + i) * Tk + j]);
                for (int v = 0; v < Dv; ++v) out[(size_t(b) * Tq + i) * Dv + v] += w * values[(size_t(b) * Tk + j) * Dv + v];
            }
        }
    return out;
}

std::vector<double> keep_factors(const Dropout& d, size_t n) {
    std::vector<double> k(n);
    for (size_t i = 0; i < n; ++i) k[i] = d.keep(i) ? 1.0 / (1.0 - d.p) : 0.0;
    return k;
}

double dot(const std::vector<double>& a, const std::vector<float>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

}  // namespace

TEST_CASE("AdditiveAttention and DotProductAttention reproduce the seeds' example (uniform weights over valid keys)") {
    // queries N(0,1) (2,1,20) / (2,1,2), keys ones (2,10,2), values arange(40).reshape(1,10,4) repeated, valid [2, 6].
    const int B = 2, Tk = 10, Dv = 4, Hd = 8;
    std::vector<float> keys(B * Tk * 2, 1.0f), values(B * Tk * Dv);
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < Tk * Dv; ++i) values[b * Tk * Dv + i] = float(i);
    std::vector<int> valid = {2, 6};
    AttnMask mask;
    mask.valid_lens = valid.data();
    std::vector<float> q20 = gradcheck::random_vector(B * 20, 1), W_q = gradcheck::random_vector(Hd * 20, 2),
                       W_k = gradcheck::random_vector(Hd * 2, 3), w_v = gradcheck::random_vector(Hd, 4);
    std::vector<float> out(B * Dv), probs(B * Tk), qp(B * Hd), kp(B * Tk * Hd);
    additive_attention_layer_forward(out.data(), probs.data(), qp.data(), kp.data(), q20.data(), keys.data(),
                                     values.data(), W_q.data(), W_k.data(), w_v.data(), mask, Dropout{}, B, 1, Tk, 20, 2,
                                     Hd, Dv);
    const std::vector<float> expected = {2, 3, 4, 5, 10, 11, 12, 13};
    for (int i = 0; i < B * Dv; ++i) CHECK(out[i] == doctest::Approx(expected[i]).epsilon(1e-5));
    for (int j = 0; j < Tk; ++j) CHECK(probs[j] == doctest::Approx(j < 2 ? 0.5 : 0.0));
    std::vector<float> q2 = gradcheck::random_vector(B * 2, 5);
    dot_product_attention_layer_forward(out.data(), probs.data(), q2.data(), keys.data(), values.data(), mask,
                                        Dropout{}, B, 1, Tk, 2, Dv);
    for (int i = 0; i < B * Dv; ++i) CHECK(out[i] == doctest::Approx(expected[i]).epsilon(1e-5));
}

TEST_CASE("AdditiveAttention layer (with dropout on the weights) backward matches a double reference") {
    const int B = 2, Tq = 3, Tk = 4, Dq = 5, Dk = 3, Hd = 6, Dv = 2;
    std::vector<float> q = gradcheck::random_vector(B * Tq * Dq, 10), k = gradcheck::random_vector(B * Tk * Dk, 11),
                       v = gradcheck::random_vector(B * Tk * Dv, 12), W_q = gradcheck::random_vector(Hd * Dq, 13),
                       W_k = gradcheck::random_vector(Hd * Dk, 14), w_v = gradcheck::random_vector(Hd, 15),
                       R = gradcheck::random_vector(B * Tq * Dv, 16);
    std::vector<int> valid = {3, 2};
    AttnMask mask;
    mask.valid_lens = valid.data();
    for (float p : {0.0f, 0.3f}) {
        CAPTURE(p);
        Dropout drop{p, 77, 5};
        std::vector<float> out(B * Tq * Dv), probs(B * Tq * Tk), qp(B * Tq * Hd), kp(B * Tk * Hd);
        additive_attention_layer_forward(out.data(), probs.data(), qp.data(), kp.data(), q.data(), k.data(), v.data(),
                                         W_q.data(), W_k.data(), w_v.data(), mask, drop, B, Tq, Tk, Dq, Dk, Hd, Dv);
        std::vector<double> keep = p > 0 ? keep_factors(drop, size_t(B) * Tq * Tk) : std::vector<double>();
        std::vector<double> dq = gradcheck::to_double(q), dk = gradcheck::to_double(k), dv = gradcheck::to_double(v),
                            dWq = gradcheck::to_double(W_q), dWk = gradcheck::to_double(W_k),
                            dwv = gradcheck::to_double(w_v);
        auto forward = [&] {
            std::vector<double> scores(size_t(B) * Tq * Tk, 0.0);
            for (int b = 0; b < B; ++b)
                for (int i = 0; i < Tq; ++i)
                    for (int j = 0; j < Tk; ++j)
                        for (int h = 0; h < Hd; ++h) {
                            double a = 0;
                            for (int c = 0; c < Dq; ++c) a += dWq[h * Dq + c] * dq[(b * Tq + i) * Dq + c];
                            for (int c = 0; c < Dk; ++c) a += dWk[h * Dk + c] * dk[(b * Tk + j) * Dk + c];
                            scores[(b * Tq + i) * Tk + j] += dwv[h] * std::tanh(a);
                        }
            return reference_attention(scores, dv, valid, keep, B, Tq, Tk, Dv);
        };
        gradcheck::check_close("out", out, forward(), 1e-5, 1e-6);
        auto loss = [&] { return dot(forward(), R); };
        std::vector<float> gq(q.size(), 0), gk(k.size(), 0), gv(v.size(), 0), gWq(W_q.size(), 0), gWk(W_k.size(), 0),
            gwv(w_v.size(), 0);
        additive_attention_layer_backward(gq.data(), gk.data(), gv.data(), gWq.data(), gWk.data(), gwv.data(), R.data(),
                                          probs.data(), qp.data(), kp.data(), q.data(), k.data(), v.data(), W_q.data(),
                                          W_k.data(), w_v.data(), drop, B, Tq, Tk, Dq, Dk, Hd, Dv);
        const double rtol = 1e-4, atol = 1e-6;
        gradcheck::check_close("dqueries", gq, gradcheck::numerical_gradient(dq.data(), dq.size(), loss, 1e-6), rtol, atol);
        gradcheck::check_close("dkeys", gk, gradcheck::numerical_gradient(dk.data(), dk.size(), loss, 1e-6), rtol, atol);
        gradcheck::check_close("dvalues", gv, gradcheck::numerical_gradient(dv.data(), dv.size(), loss, 1e-6), rtol, atol);
        gradcheck::check_close("dW_q", gWq, gradcheck::numerical_gradient(dWq.data(), dWq.size(), loss, 1e-6), rtol, atol);
        gradcheck::check_close("dW_k", gWk, gradcheck::numerical_gradient(dWk.data(), dWk.size(), loss, 1e-6), rtol, atol);
        gradcheck::check_close("dw_v", gwv, gradcheck::numerical_gradient(dwv.data(), dwv.size(), loss, 1e-6), rtol, atol);
    }
}

TEST_CASE("DotProductAttention layer (with dropout on the weights) backward matches a double reference") {
    const int B = 2, Tq = 3, Tk = 5, D = 4, Dv = 3;
    std::vector<float> q = gradcheck::random_vector(B * Tq * D, 20), k = gradcheck::random_vector(B * Tk * D, 21),
                       v = gradcheck::random_vector(B * Tk * Dv, 22), R = gradcheck::random_vector(B * Tq * Dv, 23);
    std::vector<int> valid = {5, 2};
    AttnMask mask;
    mask.valid_lens = valid.data();
    for (float p : {0.0f, 0.5f}) {
        CAPTURE(p);
        Dropout drop{p, 3, 0};
        std::vector<float> out(B * Tq * Dv), probs(B * Tq * Tk);
        dot_product_attention_layer_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), mask, drop, B, Tq,
                                            Tk, D, Dv);
        std::vector<double> keep = p > 0 ? keep_factors(drop, size_t(B) * Tq * Tk) : std::vector<double>();
        std::vector<double> dq = gradcheck::to_double(q), dk = gradcheck::to_double(k), dv = gradcheck::to_double(v);
        auto forward = [&] {
            std::vector<double> scores(size_t(B) * Tq * Tk, 0.0);
            for (int b = 0; b < B; ++b)
                for (int i = 0; i < Tq; ++i)
                    for (int j = 0; j < Tk; ++j) {
                        double s = 0;
                        for (int c = 0; c < D; ++c) s += dq[(b * Tq + i) * D + c] * dk[(b * Tk + j) * D + c];
                        scores[(b * Tq + i) * Tk + j] = s / std::sqrt(double(D));
                    }
            return reference_attention(scores, dv, valid, keep, B, Tq, Tk, Dv);
        };
        gradcheck::check_close("out", out, forward(), 1e-5, 1e-6);
        auto loss = [&] { return dot(forward(), R); };
        std::vector<float> gq(q.size(), 0), gk(k.size(), 0), gv(v.size(), 0);
        dot_product_attention_layer_backward(gq.data(), gk.data(), gv.data(), R.data(), probs.data(), q.data(), k.data(),
                                             v.data(), drop, B, Tq, Tk, D, Dv);
        gradcheck::check_close("dqueries", gq, gradcheck::numerical_gradient(dq.data(), dq.size(), loss, 1e-6), 1e-4, 1e-6);
        gradcheck::check_close("dkeys", gk, gradcheck::numerical_gradient(dk.data(), dk.size(), loss, 1e-6), 1e-4, 1e-6);
        gradcheck::check_close("dvalues", gv, gradcheck::numerical_gradient(dv.data(), dv.size(), loss, 1e-6), 1e-4, 1e-6);
    }
}
