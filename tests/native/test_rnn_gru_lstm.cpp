// nn.RNN / nn.GRU / nn.LSTM parity (tools/fixtures_rnn.py) and finite-difference checks of the BPTT backward.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gradcheck.h"
#include "io/safetensors.h"
#include "model/gru.h"
#include "model/lstm.h"
#include "model/parameter_store.h"
#include "model/rnn.h"
#include "model/rnn_tanh.h"
#include "error.h"
#include "train/gru_backward.h"
#include "train/lstm_backward.h"
#include "train/rnn_backward.h"
#include "train/rnn_tanh_backward.h"

using namespace attend;

namespace {

struct Loaded {
    explicit Loaded(SafeTensors s) : st(std::move(s)) {}
    SafeTensors st;
    RnnConfig config;
    int T = 0, B = 0;
    ParameterStore store;
    std::unique_ptr<Rnn> rnn;
};

std::unique_ptr<Loaded> load(const std::string& file) {
    auto L = std::make_unique<Loaded>(SafeTensors::from_file(std::string(ATTEND_FIXTURES_DIR) + "/" + file));
    const auto& m = L->st.metadata();
    L->config.kind = rnn_kind_from_name(m.at("kind"));
    L->config.input_size = std::stoi(m.at("input_size"));
    L->config.hidden_size = std::stoi(m.at("hidden_size"));
    L->config.num_layers = std::stoi(m.at("num_layers"));
    L->config.bidirectional = m.at("bidirectional") == "1";
    L->T = std::stoi(m.at("T"));
    L->B = std::stoi(m.at("B"));
    L->rnn = std::make_unique<Rnn>(L->config, &L->store, "");
    L->store.allocate();
    for (const TensorSpec& spec : L->store.specs()) {
        std::vector<int64_t> shape(spec.shape.begin(), spec.shape.end());
        L->st.read_floats("param." + spec.name, L->store.value_at(spec.offset), shape);
    }
    return L;
}

std::vector<float> opt(const SafeTensors& st, const std::string& name) {
    return st.contains(name) ? st.floats(name) : std::vector<float>();
}
const float* ptr(const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

void check_fixture(const std::string& file) {
    auto L = load(file);
    const SafeTensors& st = L->st;
    Rnn& rnn = *L->rnn;
    const bool lstm = L->config.kind == RnnKind::LSTM;
    const int T = L->T, B = L->B, H = L->config.hidden_size, D = rnn.directions(), LD = L->config.num_layers * D;
    std::vector<float> x = st.floats("x"), h0 = opt(st, "h0"), c0 = opt(st, "c0");
    std::vector<float> out(size_t(T) * B * D * H), h_n(size_t(LD) * B * H), c_n(lstm ? h_n.size() : 0);
    rnn.forward(out.data(), h_n.data(), c_n.empty() ? nullptr : c_n.data(), x.data(), ptr(h0), ptr(c0), T, B);
    gradcheck::check_parity(file + " out", out, st.floats("out"));
    gradcheck::check_parity(file + " h_n", h_n, st.floats("h_n"));
    if (lstm) gradcheck::check_parity(file + " c_n", c_n, st.floats("c_n"));

    L->store.zero_grad();
    std::vector<float> dx(x.size(), 0.0f), dh0(h0.size(), 0.0f), dc0(c0.size(), 0.0f);
    std::vector<float> r_out = st.floats("r_out"), r_h = st.floats("r_h_n"), r_c = opt(st, "r_c_n");
    rnn_backward(rnn, dx.data(), h0.empty() ? nullptr : dh0.data(), c0.empty() ? nullptr : dc0.data(), r_out.data(),
                 r_h.data(), ptr(r_c));
    gradcheck::check_parity(file + " dx", dx, st.floats("grad.x"));
    if (!h0.empty()) gradcheck::check_parity(file + " dh0", dh0, st.floats("grad.h0"));
    if (!c0.empty()) gradcheck::check_parity(file + " dc0", dc0, st.floats("grad.c0"));
    for (const TensorSpec& spec : L->store.specs()) {
        std::vector<float> g(L->store.grad_at(spec.offset), L->store.grad_at(spec.offset) + spec.size);
        gradcheck::check_parity(file + " d" + spec.name, g, st.floats("grad." + spec.name));
    }
}

}  // namespace

TEST_CASE("nn.GRU parity: 2 layers with h0 (outputs, final state, all gradients; metric max|err|/max|ref| <= 1e-4)") {
    check_fixture("rnn_gru.safetensors");
}
TEST_CASE("nn.GRU parity: 2 layers, bidirectional") { check_fixture("rnn_gru_bi.safetensors"); }
TEST_CASE("nn.LSTM parity: 2 layers with h0, c0") { check_fixture("rnn_lstm.safetensors"); }
TEST_CASE("nn.LSTM parity: 2 layers, bidirectional, with h0, c0") { check_fixture("rnn_lstm_bi.safetensors"); }
TEST_CASE("nn.RNN parity: 1 layer; 2 layers with h0; 2 layers bidirectional with h0; 3 layers bidirectional") {
    for (const char* file : {"rnn_rnn_1.safetensors", "rnn_rnn.safetensors", "rnn_rnn_bi.safetensors",
                             "rnn_rnn_3bi.safetensors"}) {
        CAPTURE(file);
        check_fixture(file);
    }
}

// Float forward, central differences with eps 1e-2 (evaluated in double): the loss is O(10), so float rounding
// contributes ~1e-6 * 10 / 2e-2 = 5e-4 and truncation O(eps^2) ~ 1e-4: tolerance atol 2e-3 + rtol 1e-2.
TEST_CASE("RNN/GRU/LSTM backward with dropout between layers matches finite differences") {
    for (RnnKind kind : {RnnKind::RNN, RnnKind::GRU, RnnKind::LSTM}) {
        for (bool bi : {false, true}) {
            CAPTURE(int(kind));
            CAPTURE(bi);
            RnnConfig c{kind, 3, 4, 2, bi, 0.4f};
            ParameterStore store;
            Rnn rnn(c, &store, "rnn.");
            store.allocate();
            std::vector<float> init = gradcheck::random_vector(store.size(), 11, -0.6f, 0.6f);
            std::copy(init.begin(), init.end(), store.values());
            const int T = 4, B = 2, D = rnn.directions(), LD = 2 * D, H = 4;
            std::vector<float> x = gradcheck::random_vector(size_t(T) * B * 3, 12);
            std::vector<float> h0 = gradcheck::random_vector(size_t(LD) * B * H, 13);
            std::vector<float> c0 = gradcheck::random_vector(size_t(LD) * B * H, 14);
            std::vector<float> r_out = gradcheck::random_vector(size_t(T) * B * D * H, 15);
            std::vector<float> r_h = gradcheck::random_vector(h0.size(), 16), r_c = gradcheck::random_vector(h0.size(), 17);
            const bool lstm = kind == RnnKind::LSTM;
            std::vector<float> out(r_out.size()), h_n(h0.size()), c_n(h0.size());
            auto loss = [&] {
                DropoutStream drops(0.4f, 99);  // the same masks on every evaluation
                rnn.forward(out.data(), h_n.data(), c_n.data(), x.data(), h0.data(), lstm ? c0.data() : nullptr, T, B,
                            true, &drops);
                double l = 0;
                for (size_t i = 0; i < out.size(); ++i) l += double(out[i]) * r_out[i];
                for (size_t i = 0; i < h_n.size(); ++i) l += double(h_n[i]) * r_h[i];
                if (lstm)
                    for (size_t i = 0; i < c_n.size(); ++i) l += double(c_n[i]) * r_c[i];
                return l;
            };
            loss();
            store.zero_grad();
            std::vector<float> dx(x.size(), 0.0f), dh0(h0.size(), 0.0f), dc0(c0.size(), 0.0f);
            rnn_backward(rnn, dx.data(), dh0.data(), lstm ? dc0.data() : nullptr, r_out.data(), r_h.data(),
                         lstm ? r_c.data() : nullptr);
            std::vector<float> grads(store.grads(), store.grads() + store.size());
            gradcheck::check_close("dx", dx, gradcheck::numerical_gradient(x.data(), x.size(), loss, 1e-2), 1e-2, 2e-3);
            gradcheck::check_close("dh0", dh0, gradcheck::numerical_gradient(h0.data(), h0.size(), loss, 1e-2), 1e-2,
                                   2e-3);
            if (lstm)
                gradcheck::check_close("dc0", dc0, gradcheck::numerical_gradient(c0.data(), c0.size(), loss, 1e-2), 1e-2,
                                       2e-3);
            gradcheck::check_close("dparams", grads,
                                   gradcheck::numerical_gradient(store.values(), store.size(), loss, 1e-2), 1e-2, 2e-3);
        }
    }
}

TEST_CASE("Rnn: nn.RNN's parameter shapes; kind names") {
    ParameterStore store;
    Rnn rnn(RnnConfig{RnnKind::RNN, 5, 7, 2, true, 0.0f}, &store, "rnn.");
    CHECK(store.spec("rnn.weight_ih_l0").shape == std::vector<int>{7, 5});
    CHECK(store.spec("rnn.weight_hh_l1_reverse").shape == std::vector<int>{7, 7});
    CHECK(store.spec("rnn.weight_ih_l1").shape == std::vector<int>{7, 14});
    CHECK(store.spec("rnn.bias_ih_l1_reverse").shape == std::vector<int>{7});
    CHECK(store.specs().size() == 16);
    CHECK(rnn_kind_from_name("rnn") == RnnKind::RNN);
    CHECK(std::string(rnn_kind_name(RnnKind::LSTM)) == "lstm");
    CHECK_THROWS_WITH_AS(rnn_kind_from_name("tanh"), doctest::Contains("not one of rnn, gru, lstm"), Error);
}

TEST_CASE("Rnn: parameter names follow nn.GRU / nn.LSTM, dropout is off in evaluation") {
    ParameterStore store;
    Rnn rnn(RnnConfig{RnnKind::LSTM, 5, 7, 2, true, 0.5f}, &store, "encoder.rnn.");
    CHECK(store.spec("encoder.rnn.weight_ih_l0").shape == std::vector<int>{28, 5});
    CHECK(store.spec("encoder.rnn.weight_ih_l1_reverse").shape == std::vector<int>{28, 14});
    CHECK(store.spec("encoder.rnn.bias_hh_l1").shape == std::vector<int>{28});
    CHECK(store.specs().size() == 16);
    store.allocate();
    std::vector<float> init = gradcheck::random_vector(store.size(), 1);
    std::copy(init.begin(), init.end(), store.values());
    std::vector<float> x = gradcheck::random_vector(3 * 2 * 5, 2), a(3 * 2 * 14), b(3 * 2 * 14);
    DropoutStream drops(0.5f, 1);
    rnn.forward(a.data(), nullptr, nullptr, x.data(), nullptr, nullptr, 3, 2, false, &drops);
    rnn.forward(b.data(), nullptr, nullptr, x.data(), nullptr, nullptr, 3, 2);
    CHECK(a == b);
    rnn.forward(b.data(), nullptr, nullptr, x.data(), nullptr, nullptr, 3, 2, true, &drops);
    CHECK(a != b);
}

// ---- one layer, one direction, against a double-precision scalar reference (tight tolerances) -------------------
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Returns sum(out * R) + sum(h_T * Rh) (+ sum(c_T * Rc)) of a tanh RNN (G = 1), GRU (G = 3) or LSTM (G = 4) layer
// in double.
double reference_rnn_loss(RnnKind kind, const std::vector<double>& x, const std::vector<double>& h0,
                          const std::vector<double>& c0, const std::vector<double>& w_ih,
                          const std::vector<double>& b_ih, const std::vector<double>& w_hh,
                          const std::vector<double>& b_hh, const std::vector<float>& R, const std::vector<float>& Rh,
                          const std::vector<float>& Rc, int T, int B, int I, int H, bool reverse) {
    const bool lstm = kind == RnnKind::LSTM;
    const int G = lstm ? 4 : kind == RnnKind::GRU ? 3 : 1;
    std::vector<double> h = h0, c = c0, a(G * H), r(G * H);
    double loss = 0;
    for (int s = 0; s < T; ++s) {
        const int t = reverse ? T - 1 - s : s;
        std::vector<double> hn(B * H), cn(B * H);
        for (int b = 0; b < B; ++b) {
            for (int g = 0; g < G * H; ++g) {
                a[g] = b_ih[g];
                r[g] = b_hh[g];
                for (int k = 0; k < I; ++k) a[g] += w_ih[g * I + k] * x[(t * B + b) * I + k];
                for (int k = 0; k < H; ++k) r[g] += w_hh[g * H + k] * h[b * H + k];
            }
            for (int j = 0; j < H; ++j) {
                if (kind == RnnKind::RNN) {
                    hn[b * H + j] = std::tanh(a[j] + r[j]);
                } else if (lstm) {
                    const double i = sigmoid(a[j] + r[j]), f = sigmoid(a[H + j] + r[H + j]),
                                 gg = std::tanh(a[2 * H + j] + r[2 * H + j]), o = sigmoid(a[3 * H + j] + r[3 * H + j]);
                    cn[b * H + j] = f * c[b * H + j] + i * gg;
                    hn[b * H + j] = o * std::tanh(cn[b * H + j]);
                } else {
                    const double rr = sigmoid(a[j] + r[j]), z = sigmoid(a[H + j] + r[H + j]);
                    const double n = std::tanh(a[2 * H + j] + rr * r[2 * H + j]);
                    hn[b * H + j] = (1 - z) * n + z * h[b * H + j];
                }
            }
        }
        h = hn;
        c = cn;
        for (int i = 0; i < B * H; ++i) loss += h[i] * R[t * B * H + i];
    }
    for (int i = 0; i < B * H; ++i) loss += h[i] * Rh[i] + (lstm ? c[i] * Rc[i] : 0.0);
    return loss;
}

}  // namespace

TEST_CASE("rnn_tanh_backward / gru_backward / lstm_backward (one layer, both directions) match a double-precision "
          "reference") {
    const int T = 3, B = 2, I = 3, H = 4;
    for (RnnKind kind : {RnnKind::RNN, RnnKind::GRU, RnnKind::LSTM}) {
        for (bool reverse : {false, true}) {
            CAPTURE(int(kind));
            CAPTURE(reverse);
            const bool lstm = kind == RnnKind::LSTM;
            const int G = lstm ? 4 : kind == RnnKind::GRU ? 3 : 1;
            std::vector<float> x = gradcheck::random_vector(T * B * I, 31), h0 = gradcheck::random_vector(B * H, 32),
                               c0 = gradcheck::random_vector(B * H, 33), w_ih = gradcheck::random_vector(G * H * I, 34),
                               b_ih = gradcheck::random_vector(G * H, 35), w_hh = gradcheck::random_vector(G * H * H, 36),
                               b_hh = gradcheck::random_vector(G * H, 37), R = gradcheck::random_vector(T * B * H, 38),
                               Rh = gradcheck::random_vector(B * H, 39), Rc = gradcheck::random_vector(B * H, 40);
            std::vector<float> out(T * B * H), gates(T * B * G * H), extra(T * B * H);
            if (kind == RnnKind::RNN)
                rnn_tanh_forward(out.data(), gates.data(), x.data(), h0.data(), w_ih.data(), b_ih.data(), w_hh.data(),
                                 b_hh.data(), T, B, I, H, reverse);
            else if (lstm)
                lstm_forward(out.data(), extra.data(), gates.data(), x.data(), h0.data(), c0.data(), w_ih.data(),
                             b_ih.data(), w_hh.data(), b_hh.data(), T, B, I, H, reverse);
            else
                gru_forward(out.data(), gates.data(), extra.data(), x.data(), h0.data(), w_ih.data(), b_ih.data(),
                            w_hh.data(), b_hh.data(), T, B, I, H, reverse);
            std::vector<float> dx(x.size(), 0), dh0(h0.size(), 0), dc0(c0.size(), 0), dw_ih(w_ih.size(), 0),
                dbi(b_ih.size(), 0), dw_hh(w_hh.size(), 0), dbh(b_hh.size(), 0);
            if (kind == RnnKind::RNN)
                rnn_tanh_backward(dx.data(), dh0.data(), dw_ih.data(), dbi.data(), dw_hh.data(), dbh.data(), R.data(),
                                  Rh.data(), x.data(), h0.data(), out.data(), w_ih.data(), w_hh.data(), T, B, I, H,
                                  reverse);
            else if (lstm)
                lstm_backward(dx.data(), dh0.data(), dc0.data(), dw_ih.data(), dbi.data(), dw_hh.data(), dbh.data(),
                              R.data(), Rh.data(), Rc.data(), x.data(), h0.data(), c0.data(), out.data(), extra.data(),
                              gates.data(), w_ih.data(), w_hh.data(), T, B, I, H, reverse);
            else
                gru_backward(dx.data(), dh0.data(), dw_ih.data(), dbi.data(), dw_hh.data(), dbh.data(), R.data(),
                             Rh.data(), x.data(), h0.data(), out.data(), gates.data(), extra.data(), w_ih.data(),
                             w_hh.data(), T, B, I, H, reverse);
            std::vector<double> X = gradcheck::to_double(x), H0 = gradcheck::to_double(h0), C0 = gradcheck::to_double(c0),
                                WI = gradcheck::to_double(w_ih), BI = gradcheck::to_double(b_ih),
                                WH = gradcheck::to_double(w_hh), BH = gradcheck::to_double(b_hh);
            auto loss = [&] { return reference_rnn_loss(kind, X, H0, C0, WI, BI, WH, BH, R, Rh, Rc, T, B, I, H, reverse); };
            // Forward: the projected loss of the float layer against the reference's.
            double l = 0;
            for (size_t i = 0; i < out.size(); ++i) l += double(out[i]) * R[i];
            const size_t last = reverse ? 0 : size_t(T - 1) * B * H;
            for (int i = 0; i < B * H; ++i)
                l += double(out[last + i]) * Rh[i] + (lstm ? double(extra[last + i]) * Rc[i] : 0.0);
            CHECK(l == doctest::Approx(loss()).epsilon(1e-5));
            const double rtol = 1e-4, atol = 1e-6, eps = 1e-6;
            gradcheck::check_close("dx", dx, gradcheck::numerical_gradient(X.data(), X.size(), loss, eps), rtol, atol);
            gradcheck::check_close("dh0", dh0, gradcheck::numerical_gradient(H0.data(), H0.size(), loss, eps), rtol, atol);
            if (lstm)
                gradcheck::check_close("dc0", dc0, gradcheck::numerical_gradient(C0.data(), C0.size(), loss, eps), rtol,
                                       atol);
            gradcheck::check_close("dw_ih", dw_ih, gradcheck::numerical_gradient(WI.data(), WI.size(), loss, eps), rtol,
                                   atol);
            gradcheck::check_close("db_ih", dbi, gradcheck::numerical_gradient(BI.data(), BI.size(), loss, eps), rtol, atol);
            gradcheck::check_close("dw_hh", dw_hh, gradcheck::numerical_gradient(WH.data(), WH.size(), loss, eps), rtol,
                                   atol);
            gradcheck::check_close("db_hh", dbh, gradcheck::numerical_gradient(BH.data(), BH.size(), loss, eps), rtol, atol);
        }
    }
}
