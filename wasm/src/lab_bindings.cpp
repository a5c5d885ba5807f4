// The C interface of the attention lab module (attend-lab-{simd,nosimd}), wrapped by attend-lab.js: the seeds'
// teaching examples computed by the core's own kernels. Arrays live in the wasm heap (the caller allocates them);
// shapes follow the kernels' conventions. Every function returns 1 on success and 0 on bad input or failure,
// and attend_lab_last_error() then says what was wrong.
#include "error.h"
#include "guarded.h"
#include "kernels/additive_attention.h"
#include "kernels/attention.h"
#include "kernels/attn_mask.h"
#include "kernels/masked_softmax.h"
#include "kernels/positional_encoding.h"
#include "model/dropout.h"
#include "model/linear.h"
#include "model/nadaraya_watson.h"
#include "model/nadaraya_watson_backward.h"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

using namespace attend;

namespace {

std::string g_last_error;
constexpr int64_t kMaxElements = int64_t(1) << 22;  // 16 MiB of floats per array: plenty for a teaching example

template <typename F>
int guarded(F&& f) {
    return attend::guarded(g_last_error, [&] { f(); return 1; }, 0);
}

// Each size must be in [1, limit] and the product of all of them at most kMaxElements.
void check_sizes(const char* what, std::initializer_list<std::pair<const char*, int>> sizes) {
    int64_t total = 1;
    for (const auto& [name, n] : sizes) {
        if (n < 1) throw Error(std::string(what) + ": " + name + " is " + std::to_string(n) + ", expected at least 1");
        total *= n;
        if (total > kMaxElements)
            throw Error(std::string(what) + ": the arrays are too large (more than " + std::to_string(kMaxElements) +
                        " numbers)");
    }
}

void check_valid_lens(const char* what, const int* valid_lens, int count, int Tk) {
    if (!valid_lens) return;
    for (int i = 0; i < count; ++i)
        if (valid_lens[i] < 0 || valid_lens[i] > Tk)
            throw Error(std::string(what) + ": valid length " + std::to_string(valid_lens[i]) + " (entry " +
                        std::to_string(i) + ") is outside 0.." + std::to_string(Tk));
}

AttnMask valid_lens_mask(const int* valid_lens, int per_query) {
    AttnMask mask;
    mask.valid_lens = valid_lens;
    mask.valid_lens_per_query = valid_lens && per_query;
    return mask;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* attend_lab_last_error() { return g_last_error.c_str(); }

// d2l masked_softmax. out, x: [B, Tq, Tk]; valid_lens: [B] (per_query 0), [B, Tq] (per_query 1) or null.
EMSCRIPTEN_KEEPALIVE int attend_lab_masked_softmax(float* out, const float* x, const int* valid_lens, int per_query,
                                                   int B, int Tq, int Tk) {
    return guarded([&] {
        check_sizes("masked softmax", {{"batch", B}, {"queries", Tq}, {"keys", Tk}});
        check_valid_lens("masked softmax", valid_lens, per_query ? B * Tq : B, Tk);
        masked_softmax_forward(out, x, valid_lens_mask(valid_lens, per_query), B, 1, Tq, Tk);
    });
}

// d2l AdditiveAttention (dropout off): q_proj = queries W_q^T, k_proj = keys W_k^T,
// scores = w_v . tanh(q_proj + k_proj), probs = masked_softmax(scores), out = probs values.
// out [B,Tq,Dv], probs [B,Tq,Tk], scores [B,Tq,Tk] (unmasked); queries [B,Tq,Dq], keys [B,Tk,Dk],
// values [B,Tk,Dv], W_q [Hd,Dq], W_k [Hd,Dk], w_v [Hd], valid_lens [B] or [B,Tq] or null.
EMSCRIPTEN_KEEPALIVE int attend_lab_additive_attention(float* out, float* probs, float* scores, const float* queries,
                                                       const float* keys, const float* values, const float* W_q,
                                                       const float* W_k, const float* w_v, const int* valid_lens,
                                                       int per_query, int B, int Tq, int Tk, int Dq, int Dk, int Hd,
                                                       int Dv) {
    return guarded([&] {
        check_sizes("additive attention", {{"batch", B}, {"queries", Tq}, {"keys", Tk}, {"value size", Dv}});
        check_sizes("additive attention", {{"batch", B}, {"queries", Tq + Tk}, {"hidden size", Hd}});
        check_sizes("additive attention", {{"query size", Dq}, {"key size", Dk}, {"hidden size", Hd}});
        check_valid_lens("additive attention", valid_lens, per_query ? B * Tq : B, Tk);
        std::vector<float> q_proj(size_t(B) * Tq * Hd), k_proj(size_t(B) * Tk * Hd);
        linear_forward(q_proj.data(), queries, W_q, nullptr, B * Tq, Dq, Hd);
        linear_forward(k_proj.data(), keys, W_k, nullptr, B * Tk, Dk, Hd);
        if (scores) additive_attention_scores(scores, q_proj.data(), k_proj.data(), w_v, B, Tq, Tk, Hd);
        additive_attention_forward(out, probs, q_proj.data(), k_proj.data(), w_v, values,
                                   valid_lens_mask(valid_lens, per_query), B, Tq, Tk, Hd, Dv);
    });
}

// d2l DotProductAttention (dropout off) through the fused kernel: scores = q k^T * scale (scale <= 0: 1/sqrt(D)),
// probs = masked_softmax(scores), out = probs values. Queries and keys may be narrower than the values: the fused
// kernel takes one width, so all three are zero-padded to max(D, Dv) (zeros add nothing to a dot product).
// out [B,Tq,Dv], probs [B,Tq,Tk], scores [B,Tq,Tk] (unmasked, scaled) or null; queries [B,Tq,D], keys [B,Tk,D],
// values [B,Tk,Dv], valid_lens [B] or [B,Tq] or null.
EMSCRIPTEN_KEEPALIVE int attend_lab_dot_product_attention(float* out, float* probs, float* scores,
                                                          const float* queries, const float* keys,
                                                          const float* values, const int* valid_lens, int per_query,
                                                          float scale, int B, int Tq, int Tk, int D, int Dv) {
    return guarded([&] {
        check_sizes("dot-product attention", {{"batch", B}, {"queries", Tq + Tk}, {"size", std::max(D, Dv)}});
        check_sizes("dot-product attention", {{"batch", B}, {"queries", Tq}, {"keys", Tk}});
        check_sizes("dot-product attention", {{"query and key size", D}, {"value size", Dv}});
        check_valid_lens("dot-product attention", valid_lens, per_query ? B * Tq : B, Tk);
        if (!(scale > 0.0f)) scale = 1.0f / std::sqrt(float(D));
        const int W = std::max(D, Dv);
        auto pad = [W](const float* x, int rows, int width) {
            std::vector<float> p(size_t(rows) * W, 0.0f);
            for (int r = 0; r < rows; ++r) std::copy(x + size_t(r) * width, x + size_t(r + 1) * width, &p[size_t(r) * W]);
            return p;
        };
        const std::vector<float> q = pad(queries, B * Tq, D), k = pad(keys, B * Tk, D), v = pad(values, B * Tk, Dv);
        std::vector<float> o(size_t(B) * Tq * W);
        attention_forward(o.data(), probs, q.data(), k.data(), v.data(), valid_lens_mask(valid_lens, per_query), B, 1,
                          Tq, Tk, W, scale);
        for (int r = 0; r < B * Tq; ++r) std::copy(&o[size_t(r) * W], &o[size_t(r) * W] + Dv, out + size_t(r) * Dv);
        if (scores) {
            for (int b = 0; b < B; ++b)
                for (int i = 0; i < Tq; ++i)
                    for (int j = 0; j < Tk; ++j) {
                        const float* qi = &q[(size_t(b) * Tq + i) * W];
                        const float* kj = &k[(size_t(b) * Tk + j) * W];
                        float s = 0.0f;
                        for (int d = 0; d < D; ++d) s += qi[d] * kj[d];
                        scores[(size_t(b) * Tq + i) * Tk + j] = s * scale;
                    }
        }
    });
}

// Attention pooling of given scores (the worked Bahdanau step): weights = masked_softmax(scores) over the first
// valid_len keys (valid_len < 0: all), context = weights values. weights [Tk], context [Dv]; scores [Tk],
// values [Tk, Dv].
EMSCRIPTEN_KEEPALIVE int attend_lab_attention_pool(float* weights, float* context, const float* scores,
                                                   const float* values, int valid_len, int Tk, int Dv) {
    return guarded([&] {
        check_sizes("attention pooling", {{"keys", Tk}, {"value size", Dv}});
        if (valid_len > Tk) throw Error("attention pooling: valid length " + std::to_string(valid_len) +
                                        " is more than the " + std::to_string(Tk) + " keys");
        const int len = valid_len < 0 ? Tk : valid_len;
        for (int j = 0; j < Tk; ++j)
            if (!std::isfinite(scores[j]))
                throw Error("attention pooling: score " + std::to_string(j + 1) + " is not a finite number");
        masked_softmax_forward(weights, scores, valid_lens_mask(valid_len < 0 ? nullptr : &len, 0), 1, 1, 1, Tk);
        // context = weights (1 x Tk) times values (Tk x Dv): the core's linear layer with weight = values^T.
        std::vector<float> vt(size_t(Dv) * Tk);
        for (int j = 0; j < Tk; ++j)
            for (int d = 0; d < Dv; ++d) vt[size_t(d) * Tk + j] = values[size_t(j) * Dv + d];
        linear_forward(context, weights, vt.data(), nullptr, 1, Tk, Dv);
    });
}

// d2l's sinusoidal positional encoding table. P: [T, C].
EMSCRIPTEN_KEEPALIVE int attend_lab_positional_encoding(float* P, int T, int C) {
    return guarded([&] {
        check_sizes("positional encoding", {{"length", T}, {"dimension", C}});
        positional_encoding_table(P, T, C);
    });
}

// Standard normal numbers (mean 0, std 1) from the core's counter-based generator: out[i] = normal(seed, offset+i).
EMSCRIPTEN_KEEPALIVE int attend_lab_normal(float* out, int n, double seed, double offset) {
    return guarded([&] {
        check_sizes("normal", {{"count", n}});
        for (int i = 0; i < n; ++i) out[i] = normal_at(uint64_t(seed), uint64_t(offset) + uint64_t(i));
    });
}

// Uniform numbers in [0, 1) from the same generator (torch.rand).
EMSCRIPTEN_KEEPALIVE int attend_lab_uniform(float* out, int n, double seed, double offset) {
    return guarded([&] {
        check_sizes("uniform", {{"count", n}});
        for (int i = 0; i < n; ++i) out[i] = uniform_at(uint64_t(seed), uint64_t(offset) + uint64_t(i));
    });
}

// The seed's Nadaraya-Watson data set: x_train = sort(rand(n_train) * 5), y_train = f(x_train) + N(0, 0.5),
// x_test = arange(0, 5, 0.1) (n_test values 0.1 apart), y_truth = f(x_test), f(x) = 2 sin x + x^0.8, and the
// parametric model's initial w = rand(1). Random numbers from the core's generator with this seed (the same
// counters the native test uses). x_train, y_train [n_train]; x_test, y_truth [n_test]; w0 [1].
EMSCRIPTEN_KEEPALIVE int attend_lab_nw_data(float* x_train, float* y_train, float* x_test, float* y_truth,
                                            float* w0, int n_train, int n_test, double seed) {
    return guarded([&] {
        check_sizes("Nadaraya-Watson data", {{"training points", n_train}});
        check_sizes("Nadaraya-Watson data", {{"test points", n_test}});
        const uint64_t s = uint64_t(seed);
        auto f = [](float x) { return 2.0f * std::sin(x) + std::pow(x, 0.8f); };
        for (int i = 0; i < n_train; ++i) x_train[i] = uniform_at(s, uint64_t(i)) * 5.0f;
        std::sort(x_train, x_train + n_train);
        for (int i = 0; i < n_train; ++i) y_train[i] = f(x_train[i]) + 0.5f * normal_at(s, 1000 + uint64_t(i));
        for (int i = 0; i < n_test; ++i) {
            x_test[i] = 0.1f * float(i);
            y_truth[i] = f(x_test[i]);
        }
        *w0 = uniform_at(s, 5000);
    });
}

// Nadaraya-Watson prediction of every query from all training pairs (the seed's keys = x_train.repeat):
// out [n_query], attention [n_query, n_train]; queries [n_query], x_train, y_train [n_train]. w = 1 is the
// non-parametric estimator.
EMSCRIPTEN_KEEPALIVE int attend_lab_nw_predict(float* out, float* attention, const float* queries,
                                               const float* x_train, const float* y_train, float w, int n_query,
                                               int n_train) {
    return guarded([&] {
        check_sizes("Nadaraya-Watson", {{"queries", n_query}, {"training points", n_train}});
        if (!std::isfinite(w)) throw Error("Nadaraya-Watson: w is not a finite number");
        std::vector<float> keys(size_t(n_query) * n_train), values(size_t(n_query) * n_train);
        for (int i = 0; i < n_query; ++i) {
            std::copy(x_train, x_train + n_train, &keys[size_t(i) * n_train]);
            std::copy(y_train, y_train + n_train, &values[size_t(i) * n_train]);
        }
        nadaraya_watson_forward(out, attention, queries, keys.data(), values.data(), w, n_query, n_train);
    });
}

// One epoch of the seed's training of NWKernelRegression: every training point against the other n-1 (keys and
// values with the diagonal removed), loss = MSELoss(reduction='none')(pred, y).sum(), backward, SGD step
// w -= lr dw. state: [w] in, [w after the step] out; result: [loss before the step, dw].
EMSCRIPTEN_KEEPALIVE int attend_lab_nw_train_epoch(float* state, float* result, const float* x_train,
                                                   const float* y_train, float lr, int n_train) {
    return guarded([&] {
        check_sizes("Nadaraya-Watson training", {{"training points", n_train}, {"training points", n_train}});
        if (n_train < 2) throw Error("Nadaraya-Watson training: needs at least 2 training points");
        const float w = state[0];
        if (!std::isfinite(w) || !std::isfinite(lr)) throw Error("Nadaraya-Watson training: w and lr must be finite");
        const int K = n_train - 1;
        std::vector<float> keys(size_t(n_train) * K), values(size_t(n_train) * K);
        for (int i = 0; i < n_train; ++i)
            for (int j = 0, c = 0; j < n_train; ++j)
                if (j != i) {
                    keys[size_t(i) * K + c] = x_train[j];
                    values[size_t(i) * K + c++] = y_train[j];
                }
        std::vector<float> pred(n_train), attn(size_t(n_train) * K), dpred(n_train);
        nadaraya_watson_forward(pred.data(), attn.data(), x_train, keys.data(), values.data(), w, n_train, K);
        double loss = 0;
        for (int i = 0; i < n_train; ++i) {
            const float e = pred[i] - y_train[i];
            loss += double(e) * e;
            dpred[i] = 2.0f * e;
        }
        float dw = 0.0f;
        nadaraya_watson_backward(&dw, nullptr, nullptr, nullptr, dpred.data(), attn.data(), pred.data(), x_train,
                                 keys.data(), values.data(), w, n_train, K);
        state[0] = w - lr * dw;
        result[0] = float(loss);
        result[1] = dw;
    });
}

}  // extern "C"
