// Nadaraya-Watson kernel regression (seed 000): backward against a double reference, and the seed's experiment.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gradcheck.h"
#include "model/dropout.h"
#include "model/nadaraya_watson.h"
#include "model/nadaraya_watson_backward.h"

using namespace attend;

namespace {

std::vector<double> reference_nw(const std::vector<double>& q, const std::vector<double>& k,
                                 const std::vector<double>& v, double w, int N, int K) {
    std::vector<double> out(N);
    for (int n = 0; n < N; ++n) {
        std::vector<double> s(K);
        double m = -INFINITY, z = 0, acc = 0;
        for (int j = 0; j < K; ++j) {
            const double d = (q[n] - k[n * K + j]) * w;
            m = std::max(m, s[j] = -d * d / 2);
        }
        for (int j = 0; j < K; ++j) z += std::exp(s[j] - m);
        for (int j = 0; j < K; ++j) acc += std::exp(s[j] - m) / z * v[n * K + j];
        out[n] = acc;
    }
    return out;
}

double f(double x) { return 2 * std::sin(x) + std::pow(x, 0.8); }

}  // namespace

TEST_CASE("Nadaraya-Watson backward (w, queries, keys, values) matches a double reference") {
    const int N = 4, K = 6;
    std::vector<float> q = gradcheck::random_vector(N, 1, 0, 5), k = gradcheck::random_vector(N * K, 2, 0, 5),
                       v = gradcheck::random_vector(N * K, 3, -2, 2), dout = gradcheck::random_vector(N, 4);
    const float w = 0.8f;
    std::vector<float> out(N), attn(N * K);
    nadaraya_watson_forward(out.data(), attn.data(), q.data(), k.data(), v.data(), w, N, K);
    std::vector<double> dq = gradcheck::to_double(q), dk = gradcheck::to_double(k), dv = gradcheck::to_double(v);
    double dwv = w;
    gradcheck::check_close("out", out, reference_nw(dq, dk, dv, dwv, N, K), 1e-5, 1e-6);
    auto loss = [&] {
        std::vector<double> o = reference_nw(dq, dk, dv, dwv, N, K);
        double l = 0;
        for (int n = 0; n < N; ++n) l += o[n] * dout[n];
        return l;
    };
    float gw = 0;
    std::vector<float> gq(N, 0), gk(N * K, 0), gv(N * K, 0);
    nadaraya_watson_backward(&gw, gq.data(), gk.data(), gv.data(), dout.data(), attn.data(), out.data(), q.data(),
                             k.data(), v.data(), w, N, K);
    gradcheck::check_close("dw", std::vector<float>{gw}, gradcheck::numerical_gradient(&dwv, 1, loss, 1e-6), 1e-5, 1e-7);
    gradcheck::check_close("dqueries", gq, gradcheck::numerical_gradient(dq.data(), dq.size(), loss, 1e-6), 1e-5, 1e-7);
    gradcheck::check_close("dkeys", gk, gradcheck::numerical_gradient(dk.data(), dk.size(), loss, 1e-6), 1e-5, 1e-7);
    gradcheck::check_close("dvalues", gv, gradcheck::numerical_gradient(dv.data(), dv.size(), loss, 1e-6), 1e-5, 1e-7);
}

// The seed's experiment: y = 2 sin(x) + x^0.8 + eps, eps ~ N(0, 0.5); 50 sorted training points x ~ U(0, 5);
// 50 test points arange(0, 5, 0.1). Random numbers come from the counter-based generator (several seeds).
TEST_CASE("Nadaraya-Watson: the seed's experiment (non-parametric is closer to the truth than average pooling; parametric w trained "
          "5 epochs with SGD lr 0.5 lowers the loss every epoch; attention rows sum to 1)") {
    const int n_train = 50, n_test = 50;
    for (uint64_t seed : {1ull, 2ull, 3ull, 4ull, 5ull}) {
        CAPTURE(seed);
        std::vector<float> x_train(n_train), y_train(n_train), x_test(n_test), y_truth(n_test);
        for (int i = 0; i < n_train; ++i) x_train[i] = uniform_at(seed, uint64_t(i)) * 5.0f;
        std::sort(x_train.begin(), x_train.end());
        for (int i = 0; i < n_train; ++i)
            y_train[i] = float(f(x_train[i])) + 0.5f * normal_at(seed, 1000 + uint64_t(i));
        for (int i = 0; i < n_test; ++i) {
            x_test[i] = 0.1f * float(i);
            y_truth[i] = float(f(x_test[i]));
        }
        // Non-parametric (w = 1): every test point attends to every training point.
        std::vector<float> keys(n_test * n_train), values(n_test * n_train);
        for (int i = 0; i < n_test; ++i)
            for (int j = 0; j < n_train; ++j) {
                keys[i * n_train + j] = x_train[j];
                values[i * n_train + j] = y_train[j];
            }
        std::vector<float> y_hat(n_test), attn(n_test * n_train);
        nadaraya_watson_forward(y_hat.data(), attn.data(), x_test.data(), keys.data(), values.data(), 1.0f, n_test,
                                n_train);
        double mean_y = 0, err_nw = 0, err_mean = 0;
        for (float y : y_train) mean_y += y / n_train;
        for (int i = 0; i < n_test; ++i) {
            err_nw += std::pow(y_hat[i] - y_truth[i], 2);
            err_mean += std::pow(mean_y - y_truth[i], 2);
            double row = 0;
            for (int j = 0; j < n_train; ++j) row += attn[i * n_train + j];
            CHECK(row == doctest::Approx(1.0).epsilon(1e-6));
        }
        CHECK(err_nw < err_mean);  // the seed: the kernel estimate is closer to the truth than the mean

        // Parametric: each training point against the OTHER 49 (the seed's keys/values with the diagonal removed).
        const int K = n_train - 1;
        std::vector<float> tk(n_train * K), tv(n_train * K);
        for (int i = 0; i < n_train; ++i)
            for (int j = 0, c = 0; j < n_train; ++j)
                if (j != i) {
                    tk[i * K + c] = x_train[j];
                    tv[i * K + c++] = y_train[j];
                }
        float w = uniform_at(seed, 5000);  // torch.rand((1,))
        std::vector<float> pred(n_train), a(n_train * K), dpred(n_train);
        double previous = INFINITY;
        for (int epoch = 0; epoch < 5; ++epoch) {
            nadaraya_watson_forward(pred.data(), a.data(), x_train.data(), tk.data(), tv.data(), w, n_train, K);
            double l = 0;  // MSELoss(reduction='none')(...).sum()
            for (int i = 0; i < n_train; ++i) {
                l += std::pow(pred[i] - y_train[i], 2);
                dpred[i] = 2.0f * (pred[i] - y_train[i]);
            }
            CAPTURE(epoch);
            CHECK(l < previous);
            previous = l;
            float dw = 0;
            nadaraya_watson_backward(&dw, nullptr, nullptr, nullptr, dpred.data(), a.data(), pred.data(),
                                     x_train.data(), tk.data(), tv.data(), w, n_train, K);
            w -= 0.5f * dw;  // torch.optim.SGD(lr=0.5)
        }
        nadaraya_watson_forward(y_hat.data(), attn.data(), x_test.data(), keys.data(), values.data(), w, n_test, n_train);
        for (int i = 0; i < n_test; ++i) {
            double row = 0;
            for (int j = 0; j < n_train; ++j) row += attn[i * n_train + j];
            CHECK(row == doctest::Approx(1.0).epsilon(1e-5));
        }
    }
}
