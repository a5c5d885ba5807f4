// `attend train --device`: parsing, the clear refusal of cuda when no GPU (or no CUDA backend) is there or the run is
// not a Transformer with cross entropy, and (with a GPU) the trainer's CUDA step against the CPU's.
#include <doctest/doctest.h>

#include "trainer_test_util.h"
#include "train/devices.h"
#include "error.h"
#include "model/dropout.h"
#include "train/checkpoint.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/train_batch.h"
#include "train/trainable_model.h"
#include "train/trainer.h"
#include "train/train_device.h"
#include "translate/model_file.h"
#include "translate/transformer_network.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace attend;

TEST_CASE("train device: cpu and cuda parse, anything else is refused by name") {
    CHECK(parse_train_device("cpu") == TrainDevice::Cpu);
    CHECK(parse_train_device("cuda") == TrainDevice::Cuda);
    CHECK(parse_train_device("cuda:0") == TrainDevice::Cuda);
    try {
        parse_train_device("tpu");
        FAIL("no error for tpu");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "--device 'tpu': expected cpu or cuda");
    }
    CHECK_NOTHROW(require_train_device(TrainDevice::Cpu));
}

TEST_CASE("train device: --device cuda without a usable GPU is an error that says why") {
    const CudaAvailability cuda = cuda_availability();
    if (cuda.gpus > 0) {
        MESSAGE("a GPU is present (" << cuda.description << "): the no-GPU refusal cannot be observed here");
        return;
    }
    try {
        require_train_device(TrainDevice::Cuda);
        FAIL("--device cuda was accepted without a GPU");
    } catch (const Error& e) {
        const std::string m = e.what();
        CHECK(m.find("attend train --device cuda") != std::string::npos);
        CHECK(m.find(cuda.reason) != std::string::npos);  // the runtime's reason, verbatim
        CHECK(m.find("--device cpu") != std::string::npos);
    }
}

TEST_CASE("train device: the step backend is null for the CPU and refused with the reason without a GPU") {
    TransformerConfig c;
    c.model_dim = 16;
    c.heads = 2;
    c.encoder_layers = c.decoder_layers = 1;
    c.ffn_dim = 32;
    c.src_vocab = c.tgt_vocab = 11;
    c.max_len = 16;
    const Transformer model(c);
    const TrainOptions options;
    CHECK(make_train_step_backend(TrainDevice::Cpu, model, adam_config(options)) == nullptr);
    const CudaAvailability cuda = cuda_availability();
    if (cuda.gpus > 0) {
        MESSAGE("a GPU is present: the CUDA step itself is tested in tests/cuda/test_transformer_cuda.cpp");
        return;
    }
    try {
        make_train_step_backend(TrainDevice::Cuda, model, adam_config(options));
        FAIL("a CUDA step backend was made without a GPU");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find(cuda.reason) != std::string::npos);
    }
}

// ---------------------------------------------------------------------------------------------- the trainer's device

namespace {

namespace fs = std::filesystem;

// The trainer tests' small Transformer (cross_entropy: the GPU step's loss), one train.jsonl line per step.
TrainOptions small_transformer(const std::string& out_dir) { return attend_test::small_transformer_run(out_dir, 1); }

std::string fresh_dir(const std::string& name) { return attend_test::fresh_run_dir("device-" + name); }

}  // namespace

TEST_CASE("train device: the options carry the device; old runs read back as cpu") {
    TrainOptions o = train_preset("transformer-tiny");
    CHECK(o.device == "cpu");
    o.device = "cuda";
    CHECK(train_options_from_json(train_options_to_json(o)).device == "cuda");
    nlohmann::json old = train_options_to_json(o);
    old.erase("device");
    CHECK(train_options_from_json(old).device == "cpu");
}

TEST_CASE("train device: cuda refuses what the GPU step does not train, by name, before any work") {
    for (const char* preset : {"bahdanau-d2l", "bahdanau-multi30k", "transformer-d2l"}) {
        CAPTURE(preset);
        TrainOptions o = train_preset(preset);
        o.device = "cuda";
        o.out_dir = fresh_dir(std::string("refused-") + preset);
        try {
            train_translator(o, false);
            FAIL("--device cuda was accepted for " << preset);
        } catch (const Error& e) {
            const std::string m = e.what();
            CHECK(m.find("attend train --device cuda") != std::string::npos);
            CHECK(m.find(std::string("preset '") + preset + "'") != std::string::npos);
            if (o.architecture != "transformer") CHECK(m.find("architecture 'bahdanau'") != std::string::npos);
            if (o.loss != "cross_entropy") CHECK(m.find("loss 'masked_softmax_ce'") != std::string::npos);
            CHECK(m.find("--device cpu") != std::string::npos);
        }
        CHECK_FALSE(fs::exists(o.out_dir));  // nothing was prepared or written
    }
    TrainOptions o = small_transformer(fresh_dir("unknown"));
    o.device = "tpu";
    CHECK_THROWS_WITH(train_translator(o, false), "--device 'tpu': expected cpu or cuda");
}

TEST_CASE("train device: a Transformer run on cuda without a GPU fails with the reason before any work") {
    const CudaAvailability cuda = cuda_availability();
    if (cuda.gpus > 0) {
        MESSAGE("a GPU is present (" << cuda.description << "): the no-GPU refusal cannot be observed here");
        return;
    }
    TrainOptions o = small_transformer(fresh_dir("no-gpu"));
    try {
        train_translator_on(TrainDevice::Cuda, o, false);
        FAIL("a cuda run started without a GPU");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find(cuda.reason) != std::string::npos);
    }
    o.device = "cuda";
    CHECK_THROWS_AS(train_translator(o, false), Error);
    CHECK_FALSE(fs::exists(o.out_dir));
}

// With a GPU: the device step follows the CPU step on the same seed (same initialisation, batches and dropout
// masks; only the floating-point summation order differs), and its checkpoints resume on the CPU.
// Tolerances: the first step's loss is a forward of identical parameters (relative 1e-4); after 12 Adam steps the
// runs drift apart by rounding only (relative 2e-2).
TEST_CASE("train device: cuda training follows the CPU on the same seed and resumes on the CPU") {
    const CudaAvailability cuda = cuda_availability();
    if (cuda.gpus == 0) {
        MESSAGE("SKIPPED: no usable GPU (" << cuda.reason << ")");
        return;
    }
    TrainOptions cpu = small_transformer(fresh_dir("cpu"));
    cpu.epochs = 3;  // max_steps ends both runs
    cpu.max_steps = 12;
    const TrainResult rc = train_translator_on(TrainDevice::Cpu, cpu, false);
    TrainOptions gpu = small_transformer(fresh_dir("cuda"));
    gpu.epochs = 3;
    gpu.max_steps = 12;
    const TrainResult rg = train_translator_on(TrainDevice::Cuda, gpu, false);
    REQUIRE(rc.state.step == 12);
    REQUIRE(rg.state.step == 12);
    const std::vector<double> lc = attend_test::step_losses(cpu.out_dir), lg = attend_test::step_losses(gpu.out_dir);
    REQUIRE(lc.size() == 12);
    REQUIRE(lg.size() == 12);
    CHECK(lg[0] == doctest::Approx(lc[0]).epsilon(1e-4));
    CHECK(rg.last_loss == doctest::Approx(rc.last_loss).epsilon(2e-2));
    CHECK(lg.back() < lg.front());

    // The GPU's checkpoint is a CPU checkpoint: parameters, Adam moments, position.
    const Checkpoint ck = load_checkpoint(list_checkpoints(gpu.out_dir).back());
    CHECK(ck.state.step == 12);
    CHECK(ck.adam_m.size() == ck.model.parameters().size());
    CHECK(ck.options.value("device", "") == "cuda");
    TrainOptions more = gpu;
    more.max_steps = 16;
    const TrainResult rr = train_translator_on(TrainDevice::Cpu, more, true);  // switch device on resume
    CHECK(rr.state.step == 16);
    CHECK(std::isfinite(rr.last_loss));
    CHECK(load_checkpoint(list_checkpoints(gpu.out_dir).back()).options.value("device", "") == "cpu");
}

// ------------------------------------------------- the trainer's device path, driven by a CPU stand-in for the GPU

namespace {

// The trainer's own CPU step behind the TrainStepBackend interface, with its own copy of the parameters and Adam
// moments (as a GPU holds them): a run through it must be bit-identical to the plain CPU run, which checks that the
// trainer uploads after initialisation and resume, passes the step's seed / rate / batch, and downloads before every
// checkpoint and validation.
// Asynchronous, it behaves as a GPU queue that is slow to run: a step is only remembered when queued, and runs when
// its loss is taken or the parameters are downloaded, so a trainer that read the parameters or recorded a loss too
// early would see the wrong values. nan_at_step makes that step's loss NaN.
class CpuStandInBackend final : public TrainStepBackend {
public:
    CpuStandInBackend(const Transformer& model, const TrainOptions& o, int* steps_taken, bool asynchronous = false,
                      int64_t nan_at_step = 0)
        : adam_(model.params.size(), adam_config(o)), steps_taken_(steps_taken), asynchronous_(asynchronous),
          nan_at_step_(nan_at_step) {
        tm_.network = std::make_unique<TransformerNetwork>(model.config, /*with_grads=*/true);
        std::copy_n(model.params.values(), model.params.size(), tm_.parameters().values());
        trainable_ = make_trainable(tm_);
    }

    void step(const TrainBatch& b, uint64_t dropout_seed, float label_smoothing, float clip_norm, float lr) override {
        queued_.push_back({b, dropout_seed, label_smoothing, clip_norm, lr});
        REQUIRE(queued_.size() + losses_.size() <= (asynchronous_ ? 2u : 1u));  // the interface's bound
        if (!asynchronous_) run_queued();
    }
    StepLoss take_loss() override {
        run_queued();
        REQUIRE_FALSE(losses_.empty());
        const StepLoss loss = losses_.front();
        losses_.erase(losses_.begin());
        return loss;
    }
    bool asynchronous() const override { return asynchronous_; }
    void download(ParameterStore& params, std::vector<float>& m, std::vector<float>& v) override {
        run_queued();
        const ParameterStore& p = tm_.parameters();
        REQUIRE(params.size() == p.size());
        std::copy_n(p.values(), p.size(), params.values());
        m = adam_.m();
        v = adam_.v();
    }
    void upload(const ParameterStore& params, const std::vector<float>& m, const std::vector<float>& v,
                int64_t adam_steps) override {
        REQUIRE(queued_.empty());
        ParameterStore& p = tm_.parameters();
        REQUIRE(params.size() == p.size());
        std::copy_n(params.values(), p.size(), p.values());
        adam_.m() = m;
        adam_.v() = v;
        adam_.set_steps(adam_steps);
    }

private:
    struct Queued {
        TrainBatch b;
        uint64_t dropout_seed;
        float label_smoothing, clip_norm, lr;
    };

    void run_queued() {
        for (const Queued& q : queued_) losses_.push_back(run(q));
        queued_.clear();
    }

    StepLoss run(const Queued& q) {
        const TrainBatch& b = q.b;
        Transformer& t = network_as<TransformerNetwork>(*tm_.network, "test").model;
        ParameterStore& p = t.params;
        const int N = b.B * b.T, V = t.config.tgt_vocab, pad = t.config.pad_id;
        DropoutStream dropout(t.config.dropout, q.dropout_seed);
        const float* logits = trainable_->forward(b, &dropout);
        probs_.resize(size_t(N) * V);
        const double loss_sum = cross_entropy_forward(nullptr, probs_.data(), logits, b.tgt_out.data(), pad,
                                                      q.label_smoothing, N, V);
        const int count = cross_entropy_count(b.tgt_out.data(), pad, N);
        p.zero_grad();
        dlogits_.assign(size_t(N) * V, 0.0f);
        cross_entropy_backward(dlogits_.data(), nullptr, 1.0f / std::max(1, count), probs_.data(), b.tgt_out.data(),
                               pad, q.label_smoothing, N, V);
        trainable_->backward(b, dlogits_.data());
        if (q.clip_norm > 0) clip_grad_norm(p.grads(), p.size(), q.clip_norm);
        adam_.step(p.values(), p.grads(), q.lr);
        ++*steps_taken_;
        const double mean = *steps_taken_ == nan_at_step_ ? std::nan("") : loss_sum / std::max(1, count);
        return {mean, loss_sum, count};
    }

    TranslatorModel tm_;
    std::unique_ptr<TrainableModel> trainable_;
    Adam adam_;
    int* steps_taken_;
    const bool asynchronous_;
    const int64_t nan_at_step_;
    std::vector<Queued> queued_;
    std::vector<StepLoss> losses_;
    std::vector<float> probs_, dlogits_;
};

void check_same_checkpoint(const std::string& dir_a, const std::string& dir_b) {
    const Checkpoint ca = load_checkpoint(list_checkpoints(dir_a).back());
    const Checkpoint cb = load_checkpoint(list_checkpoints(dir_b).back());
    REQUIRE(ca.model.architecture() == "transformer");
    REQUIRE(cb.model.architecture() == "transformer");
    const ParameterStore& pa = ca.model.parameters();
    const ParameterStore& pb = cb.model.parameters();
    REQUIRE(pa.size() == pb.size());
    CHECK(ca.state.step == cb.state.step);
    CHECK(std::memcmp(pa.values(), pb.values(), pa.size() * sizeof(float)) == 0);
    CHECK(ca.adam_m == cb.adam_m);
    CHECK(ca.adam_v == cb.adam_v);
}

// A run `o` through CpuStandInBackend, stopped (as by Ctrl-C) once the trainer has reported `stop_after` steps, then
// resumed to its end.
struct InterruptedRun {
    TrainResult first, second;
    int steps_before_resume = 0, steps = 0;  // what the backends ran
};
InterruptedRun interrupted_run(const TrainOptions& o, bool asynchronous, int stop_after) {
    InterruptedRun r;
    TrainHooks hooks;
    hooks.step_backend = [&](const Transformer& model, const TrainOptions& options) -> std::unique_ptr<TrainStepBackend> {
        return std::make_unique<CpuStandInBackend>(model, options, &r.steps, asynchronous);
    };
    std::atomic<bool> stop{false};
    hooks.stop = &stop;
    int progress = 0;
    hooks.progress = [&](const std::string&) { if (++progress == stop_after) stop = true; };
    r.first = train_translator(o, false, hooks);
    r.steps_before_resume = r.steps;
    stop = false;
    progress = -1000000;
    r.second = train_translator(o, /*resume=*/true, hooks);  // uploads from the checkpoint
    return r;
}

}  // namespace

TEST_CASE("train device: a step backend drives the trainer exactly like the CPU step, across a resume") {
    TrainOptions plain = small_transformer(fresh_dir("plain"));
    plain.max_steps = 6;
    const TrainResult a = train_translator(plain, false);
    REQUIRE(a.state.step == 6);

    TrainOptions split = small_transformer(fresh_dir("backend"));
    split.max_steps = 6;
    const InterruptedRun r = interrupted_run(split, /*asynchronous=*/false, 3);
    CHECK(r.first.interrupted);
    CHECK(r.first.state.step == 3);
    CHECK(r.steps_before_resume == 3);
    CHECK(r.second.state.step == 6);
    CHECK(r.steps == 6);
    const TrainResult& second = r.second;
    CHECK(second.last_loss == a.last_loss);
    CHECK(attend_test::step_losses(split.out_dir) == attend_test::step_losses(plain.out_dir));
    check_same_checkpoint(plain.out_dir, split.out_dir);
}

TEST_CASE("train device: with a step backend an epoch validates and saves the downloaded parameters") {
    TrainOptions plain = small_transformer(fresh_dir("epoch-plain"));
    plain.corpus.max_train_sentences = 120;
    const TrainResult a = train_translator(plain, false);
    REQUIRE(a.state.epoch == 1);

    int backend_steps = 0;
    TrainHooks hooks;
    hooks.step_backend = [&](const Transformer& model, const TrainOptions& o) -> std::unique_ptr<TrainStepBackend> {
        return std::make_unique<CpuStandInBackend>(model, o, &backend_steps);
    };
    TrainOptions with = small_transformer(fresh_dir("epoch-backend"));
    with.corpus.max_train_sentences = 120;
    const TrainResult b = train_translator(with, false, hooks);
    CHECK(backend_steps == b.state.step);
    CHECK(b.state.step == a.state.step);
    CHECK(b.val_loss == a.val_loss);  // validation read the downloaded parameters
    CHECK(b.val_bleu == a.val_bleu);
    check_same_checkpoint(plain.out_dir, with.out_dir);
    REQUIRE_FALSE(a.best_model.empty());
    REQUIRE_FALSE(b.best_model.empty());
    auto load = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return load_translator_model_bytes(
            std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), path);
    };
    const TranslatorModel ba = load(a.best_model), bb = load(b.best_model);
    REQUIRE(ba.parameters().size() == bb.parameters().size());
    CHECK(std::memcmp(ba.parameters().values(), bb.parameters().values(), ba.parameters().size() * sizeof(float)) == 0);
}

TEST_CASE("train device: an asynchronous step backend, whose losses come a step late, trains the same run") {
    TrainOptions plain = small_transformer(fresh_dir("async-plain"));
    plain.corpus.max_train_sentences = 120;
    plain.checkpoint_every = 3;
    plain.epochs = 2;
    const TrainResult a = train_translator(plain, false);

    TrainOptions late = small_transformer(fresh_dir("async-late"));
    late.corpus.max_train_sentences = 120;
    late.checkpoint_every = 3;
    late.epochs = 2;
    const InterruptedRun r = interrupted_run(late, /*asynchronous=*/true, 4);
    CHECK(r.first.interrupted);
    // The 4th progress line reports step 4 once step 5 is queued: the stop comes after step 5, whose loss the
    // checkpoint then holds too.
    CHECK(r.first.state.step == 5);
    CHECK(r.steps_before_resume == 5);
    CHECK(r.second.state.step == a.state.step);
    CHECK(r.steps == a.state.step);
    const TrainResult& second = r.second;
    CHECK(second.last_loss == a.last_loss);
    CHECK(second.epoch_loss_d2l == a.epoch_loss_d2l);  // every step's loss reached the epoch's sum
    CHECK(second.val_loss == a.val_loss);              // validation read the parameters after the last step
    CHECK(attend_test::step_losses(late.out_dir) == attend_test::step_losses(plain.out_dir));
    CHECK(attend_test::logged_values(late.out_dir, "epoch", "train_loss") ==
          attend_test::logged_values(plain.out_dir, "epoch", "train_loss"));
    check_same_checkpoint(plain.out_dir, late.out_dir);
    // A checkpoint holds every loss up to its step, though the last one was still with the backend when it was due.
    for (const int64_t step : {int64_t(3), int64_t(6)}) {
        const TrainingState sp = load_checkpoint(checkpoint_path(plain.out_dir, step)).state;
        const TrainingState sl = load_checkpoint(checkpoint_path(late.out_dir, step)).state;
        CHECK(sl.epoch_loss_sum == sp.epoch_loss_sum);
        CHECK(sl.epoch_tokens == sp.epoch_tokens);
        CHECK(sl.log_loss_sum == sp.log_loss_sum);
        CHECK(sl.log_steps == sp.log_steps);
    }
}

TEST_CASE("train device: a loss that turns NaN stops the run naming its step, however late it is read") {
    for (const bool asynchronous : {false, true}) {
        CAPTURE(asynchronous);
        int backend_steps = 0;
        TrainHooks hooks;
        hooks.step_backend = [&](const Transformer& model, const TrainOptions& o) -> std::unique_ptr<TrainStepBackend> {
            return std::make_unique<CpuStandInBackend>(model, o, &backend_steps, asynchronous, /*nan_at_step=*/5);
        };
        TrainOptions o = small_transformer(fresh_dir(asynchronous ? "nan-async" : "nan-sync"));
        o.checkpoint_every = 2;
        o.max_steps = 8;
        try {
            train_translator(o, false, hooks);
            FAIL("a NaN loss did not stop the run");
        } catch (const Error& e) {
            const std::string m = e.what();
            CHECK(m.find("became NaN at step 5 ") != std::string::npos);
            CHECK(m.find("lower --lr") != std::string::npos);
        }
        // The checkpoints before the NaN, none after it: step 4 is the newest, and it resumes.
        const std::vector<std::string> saved = list_checkpoints(o.out_dir);
        REQUIRE_FALSE(saved.empty());
        CHECK(load_checkpoint(saved.back()).state.step == 4);
    }
}
