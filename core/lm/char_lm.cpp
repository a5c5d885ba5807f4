#include "lm/char_lm.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "error.h"
#include "model/config_checks.h"
#include "model/dropout.h"
#include "model/linear.h"

namespace attend {

void to_json(nlohmann::json& j, const CharLmConfig& c) {
    j = nlohmann::json{{"architecture", kCharLmArchitecture}, {"rnn", rnn_kind_name(c.kind)},
                       {"vocab_size", c.vocab_size},          {"hidden_size", c.hidden_size},
                       {"num_layers", c.num_layers},          {"bidirectional", c.bidirectional}};
}

void from_json(const nlohmann::json& j, CharLmConfig& c) {
    const char* what = "char-rnn-lm config";
    if (!j.is_object()) throw Error(std::string(what) + " must be a JSON object");
    static const char* keys[] = {"architecture", "rnn", "vocab_size", "hidden_size", "num_layers", "bidirectional"};
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string key = it.key();
        if (std::find_if(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; }) == std::end(keys))
            throw Error(std::string(what) + ": unknown field '" + key +
                        "' (expected architecture, rnn, vocab_size, hidden_size, num_layers, bidirectional)");
    }
    for (const char* k : keys)
        if (!j.contains(k)) throw Error(std::string(what) + ": field '" + k + "' is missing");
    std::string arch, rnn;
    config_field(what, j, "architecture", arch);
    if (arch != kCharLmArchitecture)
        throw Error(std::string(what) + ": architecture is '" + arch + "', expected '" + kCharLmArchitecture + "'");
    config_field(what, j, "rnn", rnn);
    c.kind = rnn_kind_from_name(rnn);
    config_field(what, j, "vocab_size", c.vocab_size);
    config_field(what, j, "hidden_size", c.hidden_size);
    config_field(what, j, "num_layers", c.num_layers);
    config_field(what, j, "bidirectional", c.bidirectional);
    check_config_range(what, "vocab_size", c.vocab_size, 2, kMaxVocab);
    check_config_range(what, "hidden_size", c.hidden_size, 1, kMaxModelWidth);
    check_config_range(what, "num_layers", c.num_layers, 1, kMaxLayers);
}

CharLm::CharLm(const CharLmConfig& config) : config_(config) {
    if (config.vocab_size < 2) throw Error("char-rnn-lm: the vocabulary needs at least 2 tokens");
    rnn_ = Rnn(RnnConfig{config.kind, config.vocab_size, config.hidden_size, config.num_layers, config.bidirectional,
                         0.0f},
               &store_, "rnn.");
    w_out_ = store_.declare("linear.weight", {config.vocab_size, rnn_.output_size()});
    b_out_ = store_.declare("linear.bias", {config.vocab_size});
}

void CharLm::init_parameters(uint64_t seed) {
    float* v = store_.values();
    uint64_t counter = 0;
    for (const TensorSpec& spec : store_.specs()) {
        const bool out = spec.offset == w_out_ || spec.offset == b_out_;
        const float bound = 1.0f / std::sqrt(float(out ? rnn_.output_size() : config_.hidden_size));
        for (size_t i = 0; i < spec.size; ++i) v[spec.offset + i] = (2.0f * uniform_at(seed, counter++) - 1.0f) * bound;
    }
}

void CharLm::forward(float* logits, float* h_n, float* c_n, const int* X, const float* h0, const float* c0, int T,
                     int B) {
    if (T <= 0 || B <= 0) throw Error("char-rnn-lm: sequence length and batch size must be positive");
    const int V = config_.vocab_size;
    saved.T = T;
    saved.B = B;
    saved.onehot.assign(size_t(T) * B * V, 0.0f);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            const int id = X[size_t(b) * T + t];
            if (id < 0 || id >= V)
                throw Error("char-rnn-lm: token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                            std::to_string(V) + ")");
            saved.onehot[(size_t(t) * B + b) * V + size_t(id)] = 1.0f;  // X.T: time-major
        }
    saved.rnn_out.resize(size_t(T) * B * rnn_.output_size());
    rnn_.forward(saved.rnn_out.data(), h_n, c_n, saved.onehot.data(), h0, has_cell() ? c0 : nullptr, T, B);
    linear_forward(logits, saved.rnn_out.data(), store_.value_at(w_out_), store_.value_at(b_out_), T * B,
                   rnn_.output_size(), V);
}

double lm_cross_entropy_sum(const float* logits, const int* targets, int N, int V) {
    double sum = 0.0;
    for (int n = 0; n < N; ++n) {
        const float* row = logits + size_t(n) * V;
        const int y = targets[n];
        if (y < 0 || y >= V) throw Error("lm cross-entropy: target " + std::to_string(y) + " is outside [0, " +
                                         std::to_string(V) + ")");
        const double m = *std::max_element(row, row + V);
        double z = 0.0;
        for (int v = 0; v < V; ++v) z += std::exp(double(row[v]) - m);
        sum += m + std::log(z) - double(row[y]);
    }
    return sum;
}

double lm_perplexity(CharLm& model, const std::vector<int>& ids, int steps) {
    if (ids.size() < 2) throw Error("lm perplexity: the text needs at least 2 tokens");
    if (steps <= 0) throw Error("lm perplexity: steps must be positive");
    const int V = model.vocab_size();
    const size_t S = model.state_size(1);
    std::vector<float> h(S, 0.0f), c(S, 0.0f), h_next(S), c_next(S), logits;
    double sum = 0.0;
    const size_t n = ids.size() - 1;  // predictions
    for (size_t start = 0; start < n; start += size_t(steps)) {
        const int T = int(std::min(n - start, size_t(steps)));
        logits.resize(size_t(T) * V);
        model.forward(logits.data(), h_next.data(), c_next.data(), ids.data() + start, h.data(), c.data(), T, 1);
        sum += lm_cross_entropy_sum(logits.data(), ids.data() + start + 1, T, V);
        h.swap(h_next);
        c.swap(c_next);
    }
    return std::exp(sum / double(n));
}

namespace {

void softmax_into(std::vector<float>& p, const float* logits, int V, float temperature) {
    p.resize(size_t(V));
    const float m = *std::max_element(logits, logits + V);
    double z = 0.0;
    for (int v = 0; v < V; ++v) z += (p[size_t(v)] = std::exp((logits[v] - m) / temperature));
    for (float& x : p) x = float(x / z);
}

}  // namespace

LmGeneration lm_generate(CharLm& model, const std::vector<int>& prefix_ids, const LmGenerateOptions& o) {
    if (prefix_ids.empty()) throw Error("lm generate: the prefix is empty (it needs at least one character)");
    if (o.length < 0) throw Error("lm generate: length must be >= 0");
    if (!(o.temperature >= 0.0f) || !std::isfinite(o.temperature))
        throw Error("lm generate: temperature must be a finite number >= 0 (0: greedy)");
    if (o.top_k < 0) throw Error("lm generate: top_k must be >= 0 (0: all)");
    const int V = model.vocab_size();
    for (int id : prefix_ids)
        if (id < 0 || id >= V) throw Error("lm generate: prefix id " + std::to_string(id) + " is outside the vocabulary");
    const size_t S = model.state_size(1);
    std::vector<float> h(S, 0.0f), c(S, 0.0f), h_next(S), c_next(S), logits(static_cast<size_t>(V)), p;
    auto step = [&](int id) {
        model.forward(logits.data(), h_next.data(), c_next.data(), &id, h.data(), c.data(), 1, 1);
        h.swap(h_next);
        c.swap(c_next);
    };
    LmGeneration g;
    g.prefix_ids = prefix_ids;
    for (size_t i = 0; i + 1 < prefix_ids.size(); ++i) step(prefix_ids[i]);
    int last = prefix_ids.back();
    for (int i = 0; i < o.length; ++i) {
        step(last);
        softmax_into(p, logits.data(), V, 1.0f);
        g.distributions.push_back(p);
        int next = 0;
        if (o.temperature == 0.0f) {
            next = int(std::max_element(logits.begin(), logits.end()) - logits.begin());  // first maximum, as argmax
        } else {
            std::vector<float> q;
            softmax_into(q, logits.data(), V, o.temperature);
            std::vector<int> order(static_cast<size_t>(V));
            std::iota(order.begin(), order.end(), 0);
            // Most likely first; equal ones by id, so the draw is the same wherever the sort runs.
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return q[size_t(a)] > q[size_t(b)]; });
            const int k = o.top_k > 0 ? std::min(o.top_k, V) : V;
            double total = 0.0;
            for (int r = 0; r < k; ++r) total += q[size_t(order[size_t(r)])];
            const double u = double(uniform_at(o.seed, uint64_t(i))) * total;
            double acc = 0.0;
            next = order[size_t(k - 1)];
            for (int r = 0; r < k; ++r) {
                acc += q[size_t(order[size_t(r)])];
                if (u < acc) {
                    next = order[size_t(r)];
                    break;
                }
            }
        }
        g.ids.push_back(next);
        last = next;
    }
    return g;
}

}  // namespace attend
