#include "train/lm_trainer.h"
#include "train/native_gemm.h"

#include <chrono>
#include <cmath>

#include "error.h"
#include "lm/char_corpus.h"
#include "model/dropout.h"
#include "train/char_lm_backward.h"
#include "train/loss.h"
#include "train/optimizer.h"

namespace attend {

LmEpoch lm_train_epoch(CharLm& model, const std::vector<int>& corpus, const LmTrainOptions& o, int epoch) {
    use_native_gemm();
    const auto start = std::chrono::steady_clock::now();
    const uint64_t draw_seed = mix64(o.seed * 0x9E3779B97F4A7C15ull + uint64_t(epoch));
    std::vector<LmBatch> batches;
    if (o.random_iter) {
        const int offset = lm_draw_offset(draw_seed, o.steps - 1);
        const long subseqs = (long(corpus.size()) - offset - 1) / o.steps;
        batches = seq_data_iter_random(corpus, o.batch, o.steps, offset,
                                       lm_draw_order(draw_seed, int(std::max(subseqs, 0L))));
    } else {
        batches = seq_data_iter_sequential(corpus, o.batch, o.steps, lm_draw_offset(draw_seed, o.steps));
    }
    if (batches.empty())
        throw Error("lm training: " + std::to_string(corpus.size()) + " tokens make no batch of " +
                    std::to_string(o.batch) + " x " + std::to_string(o.steps) + " (need at least " +
                    std::to_string(long(o.batch) * o.steps + o.steps + 1) + ")");
    ParameterStore& store = model.parameters();
    SGD sgd(store.size(), SGDConfig{o.lr});
    const int V = model.vocab_size(), T = o.steps, B = o.batch, N = T * B;
    const size_t S = model.state_size(B);
    std::vector<float> h(S, 0.0f), c(S, 0.0f), h_next(S), c_next(S), logits(size_t(N) * V);
    std::vector<int> y(static_cast<size_t>(N));
    double loss_sum = 0.0;
    int64_t tokens = 0;
    LmEpoch e;
    e.epoch = epoch;
    for (const LmBatch& b : batches) {
        if (o.random_iter) {
            std::fill(h.begin(), h.end(), 0.0f);
            std::fill(c.begin(), c.end(), 0.0f);
        }
        model.forward(logits.data(), h_next.data(), c_next.data(), b.X.data(), h.data(), c.data(), T, B);
        for (int t = 0; t < T; ++t)
            for (int r = 0; r < B; ++r) y[size_t(t) * B + r] = b.Y[size_t(r) * T + t];  // Y.T.reshape(-1)
        store.zero_grad();
        const double sum = cross_entropy_fused(logits.data(), y.data(), -100, 0.0f, 1.0f / float(N), N, V);
        if (!std::isfinite(sum))
            throw Error("lm training: the loss is not finite in epoch " + std::to_string(epoch) + " (lr too high?)");
        char_lm_backward(model, logits.data());
        e.grad_norm = o.clip_norm > 0 ? clip_grad_norm(store.grads(), store.size(), o.clip_norm)
                                      : global_grad_norm(store.grads(), store.size());
        sgd.step(store.values(), store.grads());
        loss_sum += sum;  // = mean loss * numel, d2l's metric.add(l * y.numel(), y.numel())
        tokens += N;
        h.swap(h_next);  // detached: the next batch's backward stops at its start state
        c.swap(c_next);
    }
    e.perplexity = std::exp(loss_sum / double(tokens));
    e.tokens = tokens;
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return e;
}

const std::vector<LmPreset>& lm_presets() {
    static const std::vector<LmPreset> presets = [] {
        auto make = [](const char* name, RnnKind kind, int hidden, int layers, bool bi, float lr, const char* what) {
            LmPreset p;
            p.name = name;
            p.model = CharLmConfig{kind, 0, hidden, layers, bi};
            p.train.lr = lr;
            p.description = what;
            return p;
        };
        return std::vector<LmPreset>{
            make("rnn-d2l", RnnKind::RNN, 512, 1, false, 1.0f, "d2l 8.5: RNN (tanh), 512 hidden, lr 1"),
            make("gru-d2l", RnnKind::GRU, 256, 1, false, 1.0f, "d2l 9.1: GRU, 256 hidden, lr 1"),
            make("lstm-d2l", RnnKind::LSTM, 256, 1, false, 1.0f, "d2l 9.2: LSTM, 256 hidden, lr 1"),
            make("deep-lstm-d2l", RnnKind::LSTM, 256, 2, false, 2.0f, "d2l 9.3: 2-layer LSTM, 256 hidden, lr 2"),
            make("birnn-d2l", RnnKind::LSTM, 256, 2, true, 1.0f,
                 "d2l 9.4: 2-layer bidirectional LSTM, 256 hidden, lr 1 (d2l's wrong use: it sees the future)"),
        };
    }();
    return presets;
}

const LmPreset& lm_preset(const std::string& name) {
    std::string names;
    for (const LmPreset& p : lm_presets()) {
        if (p.name == name) return p;
        names += (names.empty() ? "" : ", ") + p.name;
    }
    throw Error("unknown language model preset '" + name + "' (expected one of " + names + ")");
}

}  // namespace attend
