#include "train/lm_training.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "model/dropout.h"
#include "text/utf8.h"
#include "train/char_lm_backward.h"
#include "train/loss.h"
#include "train/optimizer.h"

namespace attend {

std::vector<LmBatch> lm_epoch_batches(const std::vector<int>& corpus, const LmTrainOptions& o, int epoch) {
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
    return batches;
}

LmEpochTrainer::LmEpochTrainer(CharLm& model, const LmTrainOptions& options)
    : model_(model), o_(options), sgd_(model.parameters().size(), SGDConfig{options.lr}) {
    const size_t S = model_.state_size(o_.batch), N = size_t(o_.steps) * size_t(o_.batch);
    h_.assign(S, 0.0f);
    c_.assign(S, 0.0f);
    h_next_.resize(S);
    c_next_.resize(S);
    logits_.resize(N * size_t(model_.vocab_size()));
    y_.resize(N);
}

void LmEpochTrainer::begin(const std::vector<int>& corpus, int epoch) {
    batches_ = lm_epoch_batches(corpus, o_, epoch);
    next_ = 0;
    epoch_ = epoch;
    std::fill(h_.begin(), h_.end(), 0.0f);
    std::fill(c_.begin(), c_.end(), 0.0f);
    loss_sum_ = 0;
    tokens_ = 0;
}

LmBatchResult LmEpochTrainer::step() {
    if (done()) throw Error("lm training: epoch " + std::to_string(epoch_) + " has no batch left");
    const LmBatch& b = batches_[next_];
    const int V = model_.vocab_size(), T = o_.steps, B = o_.batch, N = T * B;
    if (o_.random_iter) {
        std::fill(h_.begin(), h_.end(), 0.0f);
        std::fill(c_.begin(), c_.end(), 0.0f);
    }
    model_.forward(logits_.data(), h_next_.data(), c_next_.data(), b.X.data(), h_.data(), c_.data(), T, B);
    for (int t = 0; t < T; ++t)
        for (int r = 0; r < B; ++r) y_[size_t(t) * B + r] = b.Y[size_t(r) * T + t];  // Y.T.reshape(-1)
    ParameterStore& store = model_.parameters();
    store.zero_grad();
    const double sum = cross_entropy_fused(logits_.data(), y_.data(), -100, 0.0f, 1.0f / float(N), N, V);
    if (!std::isfinite(sum))
        throw Error("lm training: the loss is not finite in epoch " + std::to_string(epoch_) + " (lr too high?)");
    char_lm_backward(model_, logits_.data());
    LmBatchResult r;
    r.grad_norm = o_.clip_norm > 0 ? clip_grad_norm(store.grads(), store.size(), o_.clip_norm)
                                   : global_grad_norm(store.grads(), store.size());
    sgd_.step(store.values(), store.grads());
    r.loss_sum = sum;  // = mean loss * numel, d2l's metric.add(l * y.numel(), y.numel())
    r.loss = sum / double(N);
    loss_sum_ += sum;
    tokens_ += N;
    h_.swap(h_next_);  // detached: the next batch's backward stops at its start state
    c_.swap(c_next_);
    ++next_;
    return r;
}

double LmEpochTrainer::perplexity() const { return tokens_ ? std::exp(loss_sum_ / double(tokens_)) : 0.0; }

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

LmText lm_text(const std::string& text, int64_t max_chars) {
    const std::vector<std::string> lines = d2l_clean_lines(text);
    LmText t;
    t.vocab = char_vocab(lines);
    t.ids = char_corpus(lines, t.vocab);
    if (max_chars > 0 && size_t(max_chars) < t.ids.size()) t.ids.resize(size_t(max_chars));
    return t;
}

namespace {

LmText checked_text(const std::string& text, int64_t max_chars) {
    if (text.empty()) throw Error("the text is empty");
    if (text.size() > kLmMaxTextBytes)
        throw Error("the text is " + std::to_string(text.size()) + " bytes, more than the " +
                    std::to_string(kLmMaxTextBytes >> 20) + " MiB a session trains on");
    utf8_validate(text, "the text");
    if (max_chars < 0) throw Error("chars must be 0 (all) or more, got " + std::to_string(max_chars));
    LmText t = lm_text(text, max_chars);
    if (t.ids.empty()) throw Error("the text has no letters (d2l's cleaning keeps only the letters a-z)");
    return t;
}

}  // namespace

LmTrainingSession::LmTrainingSession(const LmPreset& preset, const std::string& text, LmTrainOptions options,
                                     int64_t max_chars)
    : preset_(preset), o_(options) {
    if (!(o_.lr > 0 && std::isfinite(o_.lr))) throw Error("lr must be a positive number");
    if (o_.epochs < 1) throw Error("epochs must be at least 1, got " + std::to_string(o_.epochs));
    LmText t = checked_text(text, max_chars);
    const long need = long(o_.batch) * o_.steps + o_.steps + 1;
    if (long(t.ids.size()) < need)
        throw Error("the text is too short: " + std::to_string(t.ids.size()) + " characters after cleaning make no " +
                    "batch of " + std::to_string(o_.batch) + " x " + std::to_string(o_.steps) + " (need at least " +
                    std::to_string(need) + ")");
    model_.vocab = std::move(t.vocab);
    corpus_ = std::move(t.ids);
    CharLmConfig config = preset_.model;
    config.vocab_size = int(model_.vocab.size());
    model_.network = std::make_unique<CharLm>(config);
    model_.network->allocate(/*with_grads=*/true);
    model_.network->init_parameters(o_.seed);
    trainer_ = std::make_unique<LmEpochTrainer>(*model_.network, o_);
    trainer_->begin(corpus_, 1);
    batches_per_epoch_ = trainer_->batches();
}

LmSessionStep LmTrainingSession::step() {
    if (trainer_->done()) trainer_->begin(corpus_, epochs_done_ + 1);
    LmSessionStep s;
    s.epoch = epochs_done_;
    s.batch = trainer_->batch();
    s.batches = trainer_->batches();
    s.result = trainer_->step();
    s.step = ++step_;
    if (trainer_->done()) {
        s.epoch_done = true;
        last_perplexity_ = trainer_->perplexity();
        ++epochs_done_;
    }
    return s;
}

std::string LmTrainingSession::predict(const std::string& prefix, int length) {
    if (prefix.empty()) throw Error("predict: the prefix is empty (it needs at least one character)");
    if (length < 0 || length > 10000) throw Error("predict: length must be 0 to 10000, got " + std::to_string(length));
    utf8_validate(prefix, "the prefix");
    LmGenerateOptions o;
    o.length = length;
    const LmGeneration g = lm_generate(*model_.network, model_.encode_prefix(prefix), o);
    return prefix + model_.decode(g.ids);
}

}  // namespace attend
