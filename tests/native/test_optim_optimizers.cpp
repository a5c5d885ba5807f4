#include <doctest/doctest.h>

#include <omp.h>

#include <cmath>
#include <string>
#include <vector>

#include "gradcheck.h"
#include "io/safetensors.h"
#include "model/dropout.h"
#include "model/parameter_store.h"
#include "train/dropout.h"
#include "train/optimizer.h"
#include "train/xavier_init.h"

using namespace attend;

namespace {

SafeTensors fixture() { return SafeTensors::from_file(std::string(ATTEND_FIXTURES_DIR) + "/rnn_optim.safetensors"); }

template <class Opt>
void check_steps(const std::string& name, Opt& opt, const SafeTensors& st) {
    const int n = 12, steps = 3;
    std::vector<float> p = st.floats("p0", {n});
    std::vector<float> grads = st.floats("grads", {steps, n});
    std::vector<float> after = st.floats(name + ".after", {steps, n});
    for (int s = 0; s < steps; ++s) {
        opt.step(p.data(), grads.data() + s * n);
        std::vector<float> ref(after.begin() + s * n, after.begin() + (s + 1) * n);
        gradcheck::check_parity(name + " step " + std::to_string(s + 1), p, ref);
    }
}

}  // namespace

TEST_CASE("Adam and AdamW steps match torch.optim (3 steps, bias correction, weight decay)") {
    SafeTensors st = fixture();
    AdamConfig c;
    c.lr = 0.01f;
    c.beta1 = 0.9f;
    c.beta2 = 0.98f;
    c.eps = 1e-9f;
    c.weight_decay = 0.1f;
    Adam adam(12, c);
    check_steps("adam", adam, st);
    AdamConfig cw = adamw_config(0.01f, 0.1f);
    cw.beta2 = 0.98f;
    cw.eps = 1e-9f;
    Adam adamw(12, cw);
    check_steps("adamw", adamw, st);
    CHECK(adamw.steps() == 3);
}

TEST_CASE("SGD with momentum, dampening, weight decay and Nesterov matches torch.optim.SGD") {
    SafeTensors st = fixture();
    SGDConfig c;
    c.lr = 0.1f;
    c.momentum = 0.9f;
    c.dampening = 0.1f;
    c.weight_decay = 0.01f;
    SGD sgd(12, c);
    check_steps("sgd", sgd, st);
    SGDConfig n;
    n.lr = 0.1f;
    n.momentum = 0.9f;
    n.weight_decay = 0.01f;
    n.nesterov = true;
    SGD nesterov(12, n);
    check_steps("sgd_nesterov", nesterov, st);
}

TEST_CASE("plain SGD: p -= lr * g") {
    SGD sgd(3, SGDConfig{0.5f});
    std::vector<float> p = {1, 2, 3}, g = {0.2f, -0.4f, 0};
    sgd.step(p.data(), g.data());
    CHECK(p == std::vector<float>{0.9f, 2.2f, 3.0f});
}

TEST_CASE("grad_clipping: scales by theta / norm only above theta") {
    std::vector<float> g = gradcheck::random_vector(1000, 7, -1.0f, 1.0f);
    double ref = 0;
    for (float x : g) ref += double(x) * x;
    ref = std::sqrt(ref);
    std::vector<float> clipped = g;
    const double norm = clip_grad_norm(clipped.data(), clipped.size(), 1.0);
    CHECK(norm == doctest::Approx(ref).epsilon(1e-12));
    for (size_t i = 0; i < g.size(); ++i) CHECK(clipped[i] == doctest::Approx(g[i] / ref).epsilon(1e-6));
    CHECK(global_grad_norm(clipped.data(), clipped.size()) == doctest::Approx(1.0).epsilon(1e-6));
    std::vector<float> small = {0.3f, 0.4f};  // norm 0.5 <= 1: untouched
    CHECK(clip_grad_norm(small.data(), 2, 1.0) == doctest::Approx(0.5));
    CHECK(small == std::vector<float>{0.3f, 0.4f});
}

TEST_CASE("learning-rate schedules: constant and Noam warmup + inverse square root") {
    CHECK(LrSchedule::constant(0.005f).at(1) == 0.005f);
    CHECK(LrSchedule::constant(0.005f).at(100000) == 0.005f);
    LrSchedule noam = LrSchedule::noam(512, 4000, 2.0f);
    for (int step : {1, 10, 3999, 4000, 4001, 100000}) {
        const double ref = 2.0 / std::sqrt(512.0) * std::min(1.0 / std::sqrt(double(step)), step * std::pow(4000.0, -1.5));
        CHECK(noam.at(step) == doctest::Approx(ref).epsilon(1e-6));
    }
    CHECK(noam.at(2000) < noam.at(4000));  // rising during warmup
    CHECK(noam.at(8000) < noam.at(4000));  // decaying after
    CHECK(noam.at(16000) == doctest::Approx(noam.at(4000) / 2).epsilon(1e-5));
}

TEST_CASE("Xavier-uniform init: bound sqrt(6 / (fan_in + fan_out)), reproducible, the seeds' choice of tensors") {
    ParameterStore store;
    store.declare("encoder.embedding.weight", {50, 8});
    store.declare("encoder.rnn.weight_ih_l0", {48, 8});
    store.declare("encoder.rnn.bias_ih_l0", {48});
    store.declare("decoder.dense.weight", {100, 300});
    store.declare("decoder.dense.bias", {100});
    store.allocate();
    CHECK(xavier_init_weights(store, 42) == 2);
    for (float v : std::vector<float>(store.value("encoder.embedding.weight"), store.value("encoder.embedding.weight") + 400))
        CHECK(v == 0.0f);  // embeddings are not nn.Linear: untouched
    CHECK(store.value("decoder.dense.bias")[0] == 0.0f);
    const float* w = store.value("decoder.dense.weight");
    const double bound = std::sqrt(6.0 / 400.0);
    double mean = 0, var = 0, maxabs = 0;
    for (int i = 0; i < 30000; ++i) {
        mean += w[i];
        var += double(w[i]) * w[i];
        maxabs = std::max(maxabs, std::fabs(double(w[i])));
    }
    mean /= 30000;
    var /= 30000;
    CHECK(maxabs <= bound);
    CHECK(maxabs > 0.99 * bound);
    CHECK(std::fabs(mean) < 0.01 * bound * 3);
    CHECK(var == doctest::Approx(bound * bound / 3).epsilon(0.03));  // variance of U(-a, a) is a^2 / 3
    std::vector<float> first(w, w + 30000);
    xavier_init_weights(store, 42);
    CHECK(std::vector<float>(w, w + 30000) == first);
    xavier_init_weights(store, 43);
    CHECK(std::vector<float>(w, w + 30000) != first);
}

TEST_CASE("dropout: the blocked forward and backward keep exactly the elements keep(i) names, at every rate and on 1 or 2 threads") {
    // The blocked loops compare 24-bit draws with threshold() instead of uniform_at with p; the rates include
    // one element's own draw times 2^-24, where that element sits exactly on the edge, and the floats either side.
    const int64_t n = 3 * kDropoutBlock + 77;  // crosses block edges and ends in a partial block
    const uint64_t seed = 4242, offset = 1000003;
    const int64_t edge = 1234;
    const float on_edge = uniform_at(seed, offset + uint64_t(edge));
    const std::vector<float> rates = {0.1f, 0.3f, 1.0f / 3.0f, 0.5f, 0.999f, 1.0f, 1e-8f, on_edge,
                                      std::nextafter(on_edge, 0.0f), std::nextafter(on_edge, 1.0f)};
    const std::vector<float> dout = gradcheck::random_vector(size_t(n), 8), dx0 = gradcheck::random_vector(size_t(n), 9);
    const std::vector<float> x(size_t(n), 1.0f);
    const int saved = omp_get_max_threads();
    for (int threads : {1, 2})
        for (float p : rates) {
            omp_set_num_threads(threads);
            const Dropout d{p, seed, offset};
            std::vector<float> y(static_cast<size_t>(n)), dx = dx0;
            dropout_forward(y.data(), x.data(), d, n);
            dropout_backward(dx.data(), dout.data(), d, n);
            int64_t wrong = 0;
            for (int64_t i = 0; i < n; ++i) {
                const bool keep = d.keep(uint64_t(i));
                wrong += y[size_t(i)] != (keep ? d.scale() : 0.0f);
                // A kept gradient may be rounded once (fused multiply-add) or twice: the mask is what is tested.
                if (keep)
                    wrong += dx[size_t(i)] != doctest::Approx(dx0[size_t(i)] + dout[size_t(i)] * d.scale());
                else
                    wrong += dx[size_t(i)] != dx0[size_t(i)];
            }
            INFO("p = " << p << ", " << threads << " threads");
            CHECK(wrong == 0);
        }
    omp_set_num_threads(saved);
    // The edge element is kept at its own rate and dropped just above it.
    CHECK(Dropout{on_edge, seed, offset}.keep(uint64_t(edge)));
    CHECK_FALSE(Dropout{std::nextafter(on_edge, 1.0f), seed, offset}.keep(uint64_t(edge)));
    // A site over more than one thread's worth of elements (the blocks run in parallel there).
    const int64_t big = 70000 + 5;
    std::vector<float> ones(static_cast<size_t>(big), 1.0f), y1(ones.size()), y2(ones.size());
    const Dropout d{0.3f, 7, 11};
    omp_set_num_threads(1);
    dropout_forward(y1.data(), ones.data(), d, big);
    omp_set_num_threads(2);
    dropout_forward(y2.data(), ones.data(), d, big);
    omp_set_num_threads(saved);
    CHECK(y1 == y2);
    int64_t wrong = 0;
    for (int64_t i = 0; i < big; ++i) wrong += (y1[size_t(i)] != 0.0f) != d.keep(uint64_t(i));
    CHECK(wrong == 0);
}

TEST_CASE("dropout: reproducible from (seed, offset), keeps about 1 - p scaled by 1 / (1 - p), backward uses the same mask") {
    const int n = 20000;
    std::vector<float> x(n, 1.0f), y(n), y2(n);
    Dropout d{0.3f, 1234, 777};
    dropout_forward(y.data(), x.data(), d, n);
    dropout_forward(y2.data(), x.data(), d, n);
    CHECK(y == y2);
    int kept = 0;
    for (float v : y) {
        CHECK((v == 0.0f || v == doctest::Approx(1.0f / 0.7f)));
        kept += v != 0.0f;
    }
    CHECK(kept == doctest::Approx(0.7 * n).epsilon(0.02));
    Dropout other{0.3f, 1234, 778};
    dropout_forward(y2.data(), x.data(), other, n);
    CHECK(y != y2);
    // Elements i of (seed, offset + 1) are elements i + 1 of (seed, offset): counters, not streams.
    for (int i = 0; i + 1 < n; ++i) REQUIRE(y2[i] == y[i + 1]);
    std::vector<float> dout = gradcheck::random_vector(n, 5), dx(n, 1.0f);
    dropout_backward(dx.data(), dout.data(), d, n);
    for (int i = 0; i < n; ++i) REQUIRE(dx[i] == doctest::Approx(1.0f + (y[i] != 0.0f ? dout[i] / 0.7f : 0.0f)));
    dropout_forward(y.data(), x.data(), Dropout{}, n);  // inactive: identity
    CHECK(y == x);
    DropoutStream stream(0.1f, 9);
    Dropout a = stream.next(100), b = stream.next(50);
    CHECK(a.offset == 0);
    CHECK(b.offset == 100);
    CHECK(stream.counter() == 150);
}
