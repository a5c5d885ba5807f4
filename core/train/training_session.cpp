#include "train/training_session.h"

#include "decode/search_options.h"
#include "error.h"
#include "text/bleu.h"
#include "train/loss.h"
#include "train/thread_ranks.h"
#include "train/token_batches.h"
#include "train/trainable_model.h"
#include "translate/translator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

namespace attend {

// The untrained model (allocated with gradients) the options describe at the corpus's vocabulary sizes; o may take
// those sizes, so that the saved options describe the model.
TranslatorModel build_model(TrainOptions& o, const TranslationCorpus& corpus) {
    TranslatorModel tm;
    tm.source_pipeline = corpus.source_pipeline;
    tm.target_pipeline = corpus.target_pipeline;
    tm.source_vocab = corpus.source_vocab;
    tm.target_vocab = corpus.target_vocab;
    tm.pad_id = corpus.target_vocab["<pad>"];
    tm.bos_id = corpus.target_vocab["<bos>"];
    tm.eos_id = corpus.target_vocab["<eos>"];
    if (corpus.source_vocab["<pad>"] != tm.pad_id || corpus.source_vocab["<eos>"] != tm.eos_id)
        throw Error("the source and target vocabularies give <pad> / <eos> different ids");
    tm.network = training_architecture(o.architecture)
                     .build(o, static_cast<int>(corpus.source_vocab.size()), static_cast<int>(corpus.target_vocab.size()),
                            tm.pad_id);
    return tm;
}

AdamConfig adam_config(const TrainOptions& o) {
    AdamConfig c;
    c.lr = o.lr;
    c.beta1 = o.beta1;
    c.beta2 = o.beta2;
    c.eps = o.adam_eps;
    c.weight_decay = o.weight_decay;
    return c;
}

BatchLayout batch_layout(const TranslatorModel& tm, const TrainOptions& o) {
    BatchLayout layout;
    layout.pad = tm.pad_id;
    layout.bos = tm.bos_id;
    layout.eos = tm.eos_id;
    layout.num_steps = o.num_steps;
    return layout;
}

std::vector<std::vector<size_t>> epoch_batches(const TrainOptions& o, const TranslationCorpus& corpus, int64_t epoch) {
    if (o.num_steps > 0) return shuffled_batches(corpus.train_source.size(), o.batch_size, o.seed, epoch);
    std::vector<int> src_lens, tgt_lens;  // with the <eos> (and <bos>) the batch adds
    src_lens.reserve(corpus.train_source.size());
    tgt_lens.reserve(corpus.train_target.size());
    for (size_t i = 0; i < corpus.train_source.size(); i++) {
        src_lens.push_back(static_cast<int>(corpus.train_source[i].size()) + 1);
        tgt_lens.push_back(static_cast<int>(corpus.train_target[i].size()) + 1);
    }
    BatchingOptions batching;
    batching.max_tokens = static_cast<size_t>(o.max_tokens);
    batching.seed = o.seed;
    std::vector<std::vector<size_t>> out;
    for (TokenBatch& t : make_token_batches(src_lens, tgt_lens, batching, static_cast<uint64_t>(epoch)))
        out.push_back(std::move(t.examples));
    return out;
}

// Mean cross entropy per target token (no label smoothing) over the validation set, teacher forced, no dropout.
double validation_loss(TrainableModel& trainable, const TranslatorModel& tm, const TranslationCorpus& corpus,
                       const BatchLayout& layout) {
    const int V = static_cast<int>(tm.target_vocab.size()), limit = tm.max_source_tokens();
    double total = 0;
    int64_t count = 0;
    std::vector<float> probs;
    const size_t n = corpus.val_source.size(), rows = 64;
    for (size_t start = 0; start < n; start += rows) {
        std::vector<size_t> examples;
        for (size_t i = start; i < std::min(n, start + rows); i++) examples.push_back(i);
        TrainBatch b = make_train_batch(corpus.val_source, corpus.val_target, examples, layout);
        if (b.S > limit || b.T > limit) continue;
        const float* logits = trainable.forward(b, nullptr);
        const int N = b.B * b.T;
        probs.resize(size_t(N) * V);
        total += cross_entropy_forward(nullptr, probs.data(), logits, b.tgt_out.data(), tm.pad_id, 0.0f, N, V);
        count += cross_entropy_count(b.tgt_out.data(), tm.pad_id, N);
    }
    return count ? total / count : 0.0;
}

double validation_bleu(const TranslatorModel& model, const TranslationCorpus& corpus, int sentences) {
    const size_t n = sentences > 0 ? std::min<size_t>(sentences, corpus.val_source.size()) : corpus.val_source.size();
    std::vector<std::string> hyps(n), refs(corpus.val_references.begin(), corpus.val_references.begin() + n);
    const Translator translator = Translator::borrowing(model);
#pragma omp parallel for schedule(dynamic, 8)
    for (long i = 0; i < static_cast<long>(n); i++) {
        std::vector<int> src = corpus.val_source[i];
        src.push_back(model.eos_id);
        if (static_cast<int>(src.size()) > model.max_source_tokens()) continue;
        // Plain greedy search: no length penalty, no repetition controls, at most 2 S + 10 tokens (translate_ids
        // caps that at the model's limit: a d2l model's num_steps, as in the seeds' predict_seq2seq).
        SearchOptions o;
        o.max_length = 2 * static_cast<int>(src.size()) + 10;
        Hypothesis h = translator.translate_ids(src, o);
        if (h.finished) h.tokens.pop_back();
        hyps[i] = postprocess_for_bleu(corpus.target_vocab.tokens(h.tokens), model.target_pipeline);
    }
    return corpus_bleu(hyps, refs).score;
}

TrainingSession::TrainingSession(TrainOptions o, TranslationCorpus corpus, Communicator& comm)
    : o_(std::move(o)), comm_(comm), corpus_(std::move(corpus)), model_(build_model(o_, corpus_)),
      trainable_(make_trainable(model_)), layout_(batch_layout(model_, o_)),
      adam_(model_.parameters().size(), adam_config(o_)) {
    if (corpus_.train_source.empty()) throw Error("training: the corpus has no training pairs");
    initialise_parameters(model_, o_.init, o_.seed);
    backend_ = make_cpu_train_step(model_, *trainable_, adam_, o_, comm_);
}

TrainingSession::~TrainingSession() = default;

SessionStep TrainingSession::step() {
    if (next_batch_ == batches_.size()) {
        batches_ = epoch_batches(o_, corpus_, epoch_);
        next_batch_ = 0;
        epoch_loss_sum_ = 0;
        epoch_tokens_ = 0;
    }
    SessionStep s;
    s.batch = next_batch_;
    s.batches = batches_.size();
    s.epoch = epoch_;
    s.step = step_ + 1;
    const TrainBatch b = make_train_batch(corpus_.train_source, corpus_.train_target, batches_[s.batch], layout_);
    s.lr = learning_rate(o_, s.step, double(epoch_) + double(s.batch) / double(s.batches));
    backend_->step(comm_.size() > 1 ? shard_rows(b, comm_.rank(), comm_.size(), layout_.pad) : b,
                   step_seed(o_.seed, step_), o_.label_smoothing, o_.clip_norm, s.lr);
    s.loss = backend_->take_loss();
    if (!std::isfinite(s.loss.mean))
        throw Error("the training loss became " + std::string(std::isnan(s.loss.mean) ? "NaN" : "infinite") +
                    " at step " + std::to_string(s.step) + ": lower the learning rate or raise the warmup");
    step_ = s.step;
    next_batch_++;
    epoch_loss_sum_ += s.loss.sum;
    epoch_tokens_ += s.loss.tokens;
    if (next_batch_ == batches_.size()) {
        s.epoch_done = true;
        last_epoch_loss_ = epoch_tokens_ ? epoch_loss_sum_ / double(epoch_tokens_) : 0.0;
        epoch_++;
    }
    return s;
}

double TrainingSession::validation_loss() { return attend::validation_loss(*trainable_, model_, corpus_, layout_); }

ThreadedTrainingSession::ThreadedTrainingSession(TrainOptions o, TranslationCorpus corpus,
                                                 std::shared_ptr<ThreadRanks> ranks)
    : ranks_(ranks && ranks->size() > 1 ? std::move(ranks) : nullptr) {
    if (!ranks_) {
        replicas_.push_back(std::make_unique<TrainingSession>(std::move(o), std::move(corpus)));
        return;
    }
    const int n = ranks_->size();
    for (int r = 0; r < n; r++)
        replicas_.push_back(r + 1 < n ? std::make_unique<TrainingSession>(o, corpus, ranks_->rank(r))
                                      : std::make_unique<TrainingSession>(std::move(o), std::move(corpus), ranks_->rank(r)));
}

ThreadedTrainingSession::~ThreadedTrainingSession() = default;

SessionStep ThreadedTrainingSession::step() {
    if (!ranks_) return replicas_[0]->step();
    if (!broken_.empty()) throw Error("this threaded training stopped earlier: " + broken_);
    std::vector<SessionStep> steps(replicas_.size());
    try {
        ranks_->run([&](int r) { steps[size_t(r)] = replicas_[size_t(r)]->step(); });
    } catch (const std::exception& e) {
        // Every rank stops together on a loss that is not finite (the ranks share it), before any update; a rank
        // that failed alone may have left the others one update ahead or behind.
        const ParameterStore& first = replicas_[0]->model().parameters();
        for (const auto& replica : replicas_) {
            const ParameterStore& p = replica->model().parameters();
            if (replica->steps() != replicas_[0]->steps() ||
                std::memcmp(p.values(), first.values(), first.size() * sizeof(float)) != 0)
                broken_ = e.what();
        }
        throw;
    }
    return steps[0];
}

}  // namespace attend
