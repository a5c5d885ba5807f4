#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "error.h"
#include "gradcheck.h"
#include "io/safetensors.h"
#include "model/dropout.h"
#include "train/loss.h"
#include "train/optimizer.h"

#include <omp.h>

using namespace attend;

namespace {

// Double-precision scalar reference of nn.CrossEntropyLoss(reduction='none', ignore_index, label_smoothing).
std::vector<double> reference_ce_rows(const std::vector<double>& z, const std::vector<int>& y, int ignore, double s,
                                      int N, int V) {
    std::vector<double> rows(N, 0.0);
    for (int n = 0; n < N; ++n) {
        if (y[n] == ignore) continue;
        double m = -INFINITY;
        for (int c = 0; c < V; ++c) m = std::max(m, z[n * V + c]);
        double sum = 0;
        for (int c = 0; c < V; ++c) sum += std::exp(z[n * V + c] - m);
        const double lse = m + std::log(sum);
        double smooth = 0;
        for (int c = 0; c < V; ++c) smooth += lse - z[n * V + c];
        rows[n] = (1 - s) * (lse - z[n * V + y[n]]) + s / V * smooth;
    }
    return rows;
}

SafeTensors fixture() { return SafeTensors::from_file(std::string(ATTEND_FIXTURES_DIR) + "/rnn_loss.safetensors"); }

}  // namespace

TEST_CASE("cross entropy with ignore_index and label_smoothing matches PyTorch (loss and dlogits)") {
    SafeTensors st = fixture();
    const int N = 7, V = 6, pad = 0;
    std::vector<float> logits = st.floats("logits", {N, V});
    std::vector<int> targets = st.ints("targets");
    std::vector<float> rows(N), probs(N * V), dlogits(N * V, 0.0f);
    const double sum = cross_entropy_forward(rows.data(), probs.data(), logits.data(), targets.data(), pad, 0.1f, N, V);
    const int count = cross_entropy_count(targets.data(), pad, N);
    CHECK(count == 5);
    gradcheck::check_parity("loss rows", rows, st.floats("loss_rows"));
    gradcheck::check_parity("mean loss", std::vector<double>{sum / count}, st.floats("loss_mean"));
    cross_entropy_backward(dlogits.data(), nullptr, 1.0f / count, probs.data(), targets.data(), pad, 0.1f, N, V);
    gradcheck::check_parity("dlogits", dlogits, st.floats("grad.logits"));
}

TEST_CASE("cross entropy backward matches central differences of a double reference") {
    const int N = 5, V = 7, ignore = 2;
    std::vector<float> logits = gradcheck::random_vector(N * V, 3, -3.0f, 3.0f);
    std::vector<int> targets = {1, 2, 6, 0, 3};  // row 1 is ignored
    std::vector<float> w = gradcheck::random_vector(N, 4, 0.5f, 1.5f);  // per-row upstream gradients
    for (float s : {0.0f, 0.25f}) {
        CAPTURE(s);
        std::vector<float> probs(N * V), dlogits(N * V, 0.0f), rows(N);
        cross_entropy_forward(rows.data(), probs.data(), logits.data(), targets.data(), ignore, s, N, V);
        std::vector<double> ref_rows = reference_ce_rows(gradcheck::to_double(logits), targets, ignore, s, N, V);
        gradcheck::check_close("rows", rows, ref_rows, 1e-5, 1e-6);
        cross_entropy_backward(dlogits.data(), w.data(), 0.0f, probs.data(), targets.data(), ignore, s, N, V);
        std::vector<double> z = gradcheck::to_double(logits);
        auto loss = [&] {
            std::vector<double> r = reference_ce_rows(z, targets, ignore, s, N, V);
            double l = 0;
            for (int n = 0; n < N; ++n) l += w[n] * r[n];
            return l;
        };
        std::vector<double> numeric = gradcheck::numerical_gradient(z.data(), z.size(), loss, 1e-6);
        gradcheck::check_close("dlogits", dlogits, numeric, 1e-5, 1e-7);
        for (int c = 0; c < V; ++c) CHECK(dlogits[1 * V + c] == 0.0f);  // ignored row
    }
}

TEST_CASE("cross entropy: large logits stay finite, a bad target is named") {
    std::vector<float> logits = {1000.0f, -1000.0f, 0.0f};
    std::vector<float> probs(3), rows(1);
    int target = 0;
    cross_entropy_forward(rows.data(), probs.data(), logits.data(), &target, -100, 0.0f, 1, 3);
    CHECK(std::isfinite(rows[0]));
    CHECK(rows[0] == doctest::Approx(0.0f));
    target = 3;
    CHECK_THROWS_WITH_AS(cross_entropy_forward(rows.data(), probs.data(), logits.data(), &target, -100, 0.0f, 1, 3),
                         doctest::Contains("target 3 of row 0 is outside [0, 3)"), Error);
}

TEST_CASE("MaskedSoftmaxCELoss matches the seeds' PyTorch definition (per-sequence loss and gradient)") {
    SafeTensors st = fixture();
    const int B = 3, T = 4, V = 6;
    std::vector<float> pred = st.floats("mce.pred", {B, T, V});
    std::vector<int> label = st.ints("mce.label"), valid = st.ints("mce.valid_len");
    std::vector<float> losses(B), probs(B * T * V), dpred(B * T * V, 0.0f);
    const double total =
        masked_softmax_ce_forward(losses.data(), probs.data(), pred.data(), label.data(), valid.data(), B, T, V);
    gradcheck::check_parity("per-sequence loss", losses, st.floats("mce.loss"));
    double ref_total = 0;
    for (float l : st.floats("mce.loss")) ref_total += l;
    CHECK(total == doctest::Approx(ref_total).epsilon(1e-5));
    masked_softmax_ce_backward(dpred.data(), nullptr, probs.data(), label.data(), valid.data(), B, T, V);
    gradcheck::check_parity("dpred", dpred, st.floats("mce.grad.pred"));
}

TEST_CASE("MaskedSoftmaxCELoss backward matches central differences of a double reference") {
    const int B = 2, T = 3, V = 4;
    std::vector<float> pred = gradcheck::random_vector(B * T * V, 9, -2.0f, 2.0f);
    std::vector<int> label = {0, 3, 1, 2, 2, 0};
    std::vector<int> valid = {2, 3};
    std::vector<float> dl = {0.7f, -1.3f};
    std::vector<float> losses(B), probs(B * T * V), dpred(B * T * V, 0.0f);
    masked_softmax_ce_forward(losses.data(), probs.data(), pred.data(), label.data(), valid.data(), B, T, V);
    masked_softmax_ce_backward(dpred.data(), dl.data(), probs.data(), label.data(), valid.data(), B, T, V);
    std::vector<double> z = gradcheck::to_double(pred);
    auto loss = [&] {
        std::vector<double> rows = reference_ce_rows(z, label, -1, 0.0, B * T, V);
        double l = 0;
        for (int b = 0; b < B; ++b)
            for (int t = 0; t < valid[b]; ++t) l += dl[b] * rows[b * T + t] / T;
        return l;
    };
    gradcheck::check_close("dpred", dpred, gradcheck::numerical_gradient(z.data(), z.size(), loss, 1e-6), 1e-5, 1e-7);
    for (int v = 0; v < V; ++v) CHECK(dpred[(0 * T + 2) * V + v] == 0.0f);  // beyond valid_len
    label[5] = -1;  // a label outside the vocabulary is an error even beyond valid_len (as in PyTorch)
    CHECK_THROWS_WITH_AS(
        masked_softmax_ce_forward(losses.data(), probs.data(), pred.data(), label.data(), valid.data(), B, T, V),
        doctest::Contains("target -1 of row 5 is outside [0, 4)"), Error);
}

TEST_CASE("the loss sums and the gradient norm are the same bits for any OpenMP thread count") {
    // A run resumed on a machine with another core count, or a step repeated, must sum in the same order:
    // OpenMP's reduction(+) adds the threads' partial sums in finishing order, which with 3+ threads changes bits.
    const int N = 96, V = 1000, B = 4, T = N / B;  // N * V above the kernels' parallel threshold
    std::vector<float> logits(size_t(N) * V), probs(logits.size()), grads(size_t(1) << 18);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = 8.0f * (uniform_at(3, i) - 0.5f);
    for (size_t i = 0; i < grads.size(); ++i) grads[i] = uniform_at(4, i) - 0.5f;
    std::vector<int> targets(N), valid(B);
    for (int n = 0; n < N; ++n) targets[n] = int(uniform_at(5, n) * V) % V;
    for (int b = 0; b < B; ++b) valid[b] = 1 + b * 7;
    struct Sums { double ce, masked, norm; };
    auto sums = [&](int threads) {
        omp_set_num_threads(threads);
        Sums s{cross_entropy_forward(nullptr, probs.data(), logits.data(), targets.data(), -100, 0.1f, N, V),
               masked_softmax_ce_forward(nullptr, probs.data(), logits.data(), targets.data(), valid.data(), B, T, V),
               global_grad_norm(grads.data(), grads.size())};
        return s;
    };
    const int saved = omp_get_max_threads();
    const Sums one = sums(1);
    for (int threads : {2, 3, 5, 8}) {
        CAPTURE(threads);
        const Sums s = sums(threads);
        CHECK(s.ce == one.ce);
        CHECK(s.masked == one.masked);
        CHECK(s.norm == one.norm);
    }
    omp_set_num_threads(saved);
}

TEST_CASE("cross_entropy_fused: the loss and the gradient of the two calls, in place, bit for bit") {
    const int N = 96, V = 1000;  // above the parallel threshold
    std::vector<float> logits(size_t(N) * V);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = 8.0f * (uniform_at(6, i) - 0.5f);
    std::vector<int> targets(N);
    for (int n = 0; n < N; ++n) targets[n] = n % 7 == 3 ? -100 : int(uniform_at(7, n) * V) % V;  // some ignored
    const int saved = omp_get_max_threads();
    for (float smoothing : {0.0f, 0.1f})
        for (int threads : {1, 3}) {
            CAPTURE(smoothing);
            CAPTURE(threads);
            omp_set_num_threads(threads);
            std::vector<float> probs(logits.size()), dlogits(logits.size(), 0.0f);
            const float dloss = 1.0f / float(cross_entropy_count(targets.data(), -100, N));
            const double sum =
                cross_entropy_forward(nullptr, probs.data(), logits.data(), targets.data(), -100, smoothing, N, V);
            cross_entropy_backward(dlogits.data(), nullptr, dloss, probs.data(), targets.data(), -100, smoothing, N, V);
            std::vector<float> fused = logits;
            CHECK(cross_entropy_fused(fused.data(), targets.data(), -100, smoothing, dloss, N, V) == sum);
            CHECK(fused == dlogits);
            for (int c = 0; c < V; ++c) CHECK(fused[size_t(3) * V + c] == 0.0f);  // an ignored row: no gradient
        }
    omp_set_num_threads(saved);
    std::vector<float> row{1.0f, 2.0f, 3.0f};
    int bad = 3;
    CHECK_THROWS_WITH_AS(cross_entropy_fused(row.data(), &bad, -100, 0.0f, 1.0f, 1, 3),
                         "cross entropy: target 3 of row 0 is outside [0, 3) and is not the ignore index -100", Error);
}
