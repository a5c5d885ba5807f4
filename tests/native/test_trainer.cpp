// The trainer on a small slice of Multi30K: an interrupted and resumed run ends exactly where an uninterrupted
// one does; a diverging run stops with the step named; a full epoch validates and keeps the best model.
#include <doctest/doctest.h>

#include "trainer_test_util.h"
#include "error.h"
#include "train/presets.h"
#include "train/trainer.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

using namespace attend;
namespace fs = std::filesystem;

namespace {

TrainOptions tiny_options(const std::string& out_dir) { return attend_test::small_transformer_run(out_dir, 2); }

std::string fresh_dir(const std::string& name) { return attend_test::fresh_run_dir(name); }

}  // namespace

TEST_CASE("an interrupted run resumed from its checkpoint ends exactly like an uninterrupted one") {
    TrainOptions straight = tiny_options(fresh_dir("straight"));
    straight.max_steps = 6;
    TrainResult a = train_translator(straight, false);
    REQUIRE(a.state.step == 6);

    // Interrupt after step 3 the way Ctrl-C does (the stop flag), then resume.
    TrainOptions split = tiny_options(fresh_dir("split"));
    split.max_steps = 6;
    std::atomic<bool> stop{false};
    TrainHooks hooks;
    hooks.stop = &stop;
    int steps = 0;
    hooks.progress = [&](const std::string&) { if (++steps == 3) stop = true; };
    TrainResult first = train_translator(split, false, hooks);
    CHECK(first.interrupted);
    CHECK(first.state.step == 3);
    REQUIRE(list_checkpoints(split.out_dir).size() == 1);

    TrainResult second = train_translator(split, /*resume=*/true);
    CHECK_FALSE(second.interrupted);
    CHECK(second.state.step == 6);
    CHECK(second.last_loss == a.last_loss);  // bit-identical: same batches, same dropout masks, same Adam state

    Checkpoint ca = load_checkpoint(list_checkpoints(straight.out_dir).back());
    Checkpoint cb = load_checkpoint(list_checkpoints(split.out_dir).back());
    REQUIRE(ca.model.architecture() == "transformer");
    REQUIRE(cb.model.architecture() == "transformer");
    const ParameterStore& pa = ca.model.parameters();
    const ParameterStore& pb = cb.model.parameters();
    REQUIRE(pa.size() == pb.size());
    CHECK(std::memcmp(pa.values(), pb.values(), pa.size() * sizeof(float)) == 0);
    CHECK(ca.adam_m == cb.adam_m);
}

TEST_CASE("resume without a checkpoint, a new run without a length, or a diverging run, fails with the reason") {
    TrainOptions o = tiny_options(fresh_dir("empty"));
    CHECK_THROWS_WITH(train_translator(o, true), doctest::Contains("no checkpoint"));
    TrainOptions endless = o;
    endless.epochs = 0;  // the resuming call's "the run's own": a new run has none
    CHECK_THROWS_WITH(train_translator(endless, false), doctest::Contains("epochs is 0, expected >= 1"));

    TrainOptions diverge = tiny_options(fresh_dir("diverge"));
    diverge.lr = 1e30f;
    diverge.warmup_steps = 1;
    diverge.max_steps = 20;
    CHECK_THROWS_WITH(train_translator(diverge, false), doctest::Contains("at step"));
}

TEST_CASE("a full epoch logs, validates, keeps the best model and checkpoints atomically") {
    TrainOptions o = tiny_options(fresh_dir("epoch"));
    o.corpus.max_train_sentences = 200;
    TrainResult r = train_translator(o, false);
    CHECK(r.state.epoch == 1);
    CHECK(r.val_loss > 0);
    CHECK(std::isfinite(r.val_loss));
    CHECK(r.val_bleu >= 0);
    CHECK(fs::exists(r.best_model));
    std::vector<std::string> ckpts = list_checkpoints(o.out_dir);
    REQUIRE(ckpts.size() == 1);
    Checkpoint c = load_checkpoint(ckpts.back());
    CHECK(c.state.epoch == 1);
    CHECK(c.state.batch_in_epoch == 0);
    for (const auto& entry : fs::directory_iterator(o.out_dir)) CHECK(entry.path().extension() != ".tmp");
    std::ifstream log(fs::path(o.out_dir) / "train.jsonl");
    int steps = 0, epochs = 0;
    for (std::string line; std::getline(log, line);) {
        nlohmann::json j = nlohmann::json::parse(line);
        steps += j["event"] == "step";
        epochs += j["event"] == "epoch";
    }
    CHECK(steps >= 1);
    CHECK(epochs == 1);
}

namespace {

// The learning rate the run logged at every step, by epoch (1-based: [0] is empty).
std::vector<std::vector<double>> logged_rates(const TrainOptions& o) {
    std::ifstream log(fs::path(o.out_dir) / "train.jsonl");
    std::vector<std::vector<double>> rates(o.epochs + 1);
    for (std::string line; std::getline(log, line);) {
        nlohmann::json j = nlohmann::json::parse(line);
        if (j["event"] == "step") rates.at(j["epoch"].get<int>()).push_back(j["lr"].get<double>());
    }
    return rates;
}

}  // namespace

TEST_CASE("a cooldown takes the learning rate linearly down to 0 over the last epochs") {
    TrainOptions o = tiny_options(fresh_dir("cooldown"));
    o.corpus.max_train_sentences = 200;
    o.epochs = 2;
    o.cooldown_epochs = 1;
    o.log_every = 1;
    o.val_bleu_sentences = 4;
    train_translator(o, false);
    const std::vector<std::vector<double>> rates = logged_rates(o);
    const std::vector<double>& first_epoch = rates[1];
    const std::vector<double>& second_epoch = rates[2];
    REQUIRE(first_epoch.size() > o.warmup_steps + 2);
    REQUIRE(second_epoch.size() >= 4);
    // The first epoch is untouched: warmup, then lr * sqrt(warmup / step).
    const int step = o.warmup_steps * 2;
    CHECK(first_epoch[step - 1] == doctest::Approx(o.lr * std::sqrt(double(o.warmup_steps) / step)).epsilon(1e-6));
    // The second falls in equal steps from the inverse-square-root rate to one step above 0.
    const double n = second_epoch.size();
    for (size_t i = 0; i < second_epoch.size(); i++) {
        const double step_i = first_epoch.size() + i + 1;
        const double expected = o.lr * std::sqrt(o.warmup_steps / step_i) * (n - i) / n;
        CHECK(second_epoch[i] == doctest::Approx(expected).epsilon(1e-5));
    }
    CHECK(second_epoch.back() < second_epoch.front() / n);

    // Interrupted in its cooldown and resumed without naming its length or cooldown (0 and -1: the run's own), it
    // takes the same rates.
    TrainOptions split = o;
    split.out_dir = fresh_dir("cooldown-split");
    std::atomic<bool> stop{false};
    TrainHooks hooks;
    hooks.stop = &stop;
    const size_t stop_at = first_epoch.size() + 2;
    size_t steps = 0;
    hooks.progress = [&](const std::string&) { if (++steps == stop_at) stop = true; };
    REQUIRE(train_translator(split, false, hooks).interrupted);
    split.epochs = 0;
    split.cooldown_epochs = -1;
    train_translator(split, /*resume=*/true);
    split.epochs = o.epochs;
    const std::vector<std::vector<double>> resumed = logged_rates(split);
    CHECK(resumed[1] == first_epoch);
    CHECK(resumed[2] == second_epoch);
}

TEST_CASE("a run started from a model takes its parameters, tokenizers and vocabularies; Adam starts afresh") {
    TrainOptions a = tiny_options(fresh_dir("start-base"));
    a.max_steps = 3;
    train_translator(a, false);
    const std::string base_path = list_checkpoints(a.out_dir).back();
    const Checkpoint base = load_checkpoint(base_path);

    // Other BPE merges: prepared afresh, the vocabularies would differ; started from the model, they are its own.
    TrainOptions b = tiny_options(fresh_dir("start-tuned"));
    b.corpus.bpe_merges = 150;
    b.start_from = base_path;
    b.max_steps = 1;
    TrainResult rb = train_translator(b, false);
    CHECK(rb.state.step == 1);  // a new run: its own step count
    const Checkpoint tuned = load_checkpoint(list_checkpoints(b.out_dir).back());
    REQUIRE(tuned.model.source_vocab.size() == base.model.source_vocab.size());
    REQUIRE(tuned.model.target_vocab.size() == base.model.target_vocab.size());
    for (size_t i = 0; i < base.model.target_vocab.size(); i++)
        CHECK(tuned.model.target_vocab.token(int(i)) == base.model.target_vocab.token(int(i)));
    CHECK(nlohmann::json(tuned.model.source_pipeline) == nlohmann::json(base.model.source_pipeline));

    // Adam's first step moves each parameter by at most the learning rate (m/sqrt(v) = g/|g|), so every parameter
    // is within lr of the model's; a fresh initialisation (another seed: the same seed initialises the model's own
    // starting point, three steps of at most lr away) is not.
    auto largest_distance = [&](const ParameterStore& p) {
        const ParameterStore& q = base.model.parameters();
        REQUIRE(p.size() == q.size());
        double worst = 0;
        for (size_t i = 0; i < p.size(); i++)
            worst = std::max(worst, std::abs(double(p.values()[i]) - q.values()[i]) - 1e-6 * std::abs(q.values()[i]));
        return worst;
    };
    CHECK(largest_distance(tuned.model.parameters()) <= b.lr);
    TrainOptions fresh = tiny_options(fresh_dir("start-fresh"));
    fresh.max_steps = 1;
    fresh.seed = a.seed + 1;
    train_translator(fresh, false);
    CHECK(largest_distance(load_checkpoint(list_checkpoints(fresh.out_dir).back()).model.parameters()) > 10 * b.lr);
    CHECK(tuned.adam_m != base.adam_m);

    // A model of another shape or language pair, a file that is not a model, or a resume that also names a model:
    // refused.
    TrainOptions wider = b;
    wider.out_dir = fresh_dir("start-wider");
    wider.model.model_dim = 64;
    const std::string shape_error = "--start-from " + base_path + ": the model has";
    CHECK_THROWS_WITH(train_translator(wider, false), doctest::Contains(shape_error.c_str()));
    TrainOptions other_pair = b;
    other_pair.out_dir = fresh_dir("start-pair");
    other_pair.corpus.source_lang = "de";
    other_pair.corpus.target_lang = "en";
    CHECK_THROWS_WITH(train_translator(other_pair, false), doctest::Contains("translates en-de, the run is for de-en"));
    TrainOptions missing = b;
    missing.out_dir = fresh_dir("start-missing");
    missing.start_from = missing.out_dir + "/none.safetensors";
    const std::string load_error = "--start-from: " + missing.start_from;
    CHECK_THROWS_WITH(train_translator(missing, false), doctest::Contains(load_error.c_str()));
    CHECK_THROWS_WITH(train_translator(b, true), doctest::Contains("give one of them"));
}

TEST_CASE("a new run refuses a folder that holds another run; --overwrite moves that run aside first") {
    TrainOptions old_run = tiny_options(fresh_dir("occupied"));
    old_run.max_steps = 4;
    old_run.checkpoint_every = 2;
    train_translator(old_run, false);
    const std::vector<std::string> old_checkpoints = list_checkpoints(old_run.out_dir);
    REQUIRE(old_checkpoints.size() == 2);  // steps 2 and 4
    const std::vector<double> old_losses = attend_test::step_losses(old_run.out_dir);

    // Another run into the same folder: refused before any work, the old run untouched.
    TrainOptions new_run = old_run;
    new_run.seed = 7;
    new_run.max_steps = 2;
    const std::string refused = old_run.out_dir + " holds another run (2 checkpoint(s), the newest checkpoint-00000004";
    CHECK_THROWS_WITH(train_translator(new_run, false), doctest::Contains(refused.c_str()));
    CHECK_THROWS_WITH(train_translator(new_run, false), doctest::Contains("--resume, train into another --out, or give --overwrite"));
    CHECK(list_checkpoints(old_run.out_dir) == old_checkpoints);
    CHECK(load_checkpoint(old_checkpoints.back()).state.step == 4);
    CHECK(attend_test::step_losses(old_run.out_dir) == old_losses);

    TrainOptions both = new_run;
    both.overwrite = true;
    CHECK_THROWS_WITH(train_translator(both, true), doctest::Contains("--overwrite sets the folder's run aside"));

    // --overwrite: the old run's files move into a subfolder; the folder then holds the new run alone.
    std::vector<std::string> said;
    TrainHooks hooks;
    hooks.message = [&](const std::string& line) { said.push_back(line); };
    TrainResult r = train_translator(both, false, hooks);
    CHECK(r.state.step == 2);
    REQUIRE(!said.empty());
    CHECK(said[0].rfind("--overwrite: moved the 3 files of the run that was in " + old_run.out_dir + " into ", 0) == 0);
    const std::vector<std::string> now = list_checkpoints(old_run.out_dir);
    REQUIRE(now.size() == 1);
    CHECK(load_checkpoint(now[0]).options["seed"] == 7);
    CHECK(attend_test::step_losses(old_run.out_dir).size() == 1);  // the new run's log alone (log every 2 steps)
    std::vector<fs::path> aside;
    for (const auto& entry : fs::directory_iterator(old_run.out_dir))
        if (entry.is_directory()) aside.push_back(entry.path());
    REQUIRE(aside.size() == 1);
    CHECK(aside[0].filename().string().rfind("overwritten-", 0) == 0);
    CHECK(list_checkpoints(aside[0].string()).size() == 2);
    CHECK(attend_test::step_losses(aside[0].string()) == old_losses);
    // The new run continues as itself.
    TrainOptions more = both;
    more.overwrite = false;
    more.max_steps = 3;
    CHECK(train_translator(more, /*resume=*/true).state.step == 3);
    CHECK(load_checkpoint(list_checkpoints(old_run.out_dir).back()).options["seed"] == 7);

    // A folder with only a log (a run killed before its first checkpoint) holds a run too.
    TrainOptions logged = tiny_options(fresh_dir("log-only"));
    fs::create_directories(logged.out_dir);
    std::ofstream(fs::path(logged.out_dir) / "train.jsonl") << R"({"event":"step","step":1,"epoch":1})" "\n";
    CHECK_THROWS_WITH(train_translator(logged, false), doctest::Contains("holds another run (1 of its files, such as train.jsonl)"));
}

TEST_CASE("a run folder is locked for the whole run: another trainer stops at once naming the holder") {
    TrainOptions o = tiny_options(fresh_dir("locked"));
    o.max_steps = 2;
    {
        RunFolderLock held(o.out_dir);
        const std::string in_use = o.out_dir + " is in use by another training run (pid " + std::to_string(::getpid()) + ",";
        CHECK_THROWS_WITH(train_translator(o, false), doctest::Contains(in_use.c_str()));
        CHECK_THROWS_WITH(RunFolderLock(o.out_dir), doctest::Contains(in_use.c_str()));
        CHECK(list_checkpoints(o.out_dir).empty());
    }
    CHECK(train_translator(o, false).state.step == 2);  // released with its holder
    RunFolderLock after(o.out_dir);                      // and by the run when it ends
}

TEST_CASE("threads: a step too small to gain from a second thread trains on one; a large one on all; the caller's count comes back") {
    // The seeds' presets: tens of thousands of parameters, 640 tokens a batch.
    const TrainOptions d2l = train_preset("bahdanau-d2l");
    CHECK(tokens_per_batch(d2l) == 640);
    CHECK(training_threads(46839, tokens_per_batch(d2l), 2) == 1);
    // The Multi30K Transformer: 2.6 million parameters, 8192 tokens a batch.
    const TrainOptions tiny = train_preset("transformer-tiny-cased-wu");
    CHECK(tokens_per_batch(tiny) == 8192);
    CHECK(training_threads(2588869, tokens_per_batch(tiny), 2) == 2);
    CHECK(training_threads(2588869, tokens_per_batch(tiny), 1) == 1);

    // A run that chose one thread for itself leaves the caller's count as it was.
    const int before = omp_get_max_threads();
    TrainOptions o = train_preset("bahdanau-d2l");
    o.out_dir = fresh_dir("threads-small");
    o.max_steps = 2;
    o.validate_every = 1000;
    TrainHooks hooks;
    std::string model_line;
    hooks.message = [&](const std::string& line) { if (line.rfind("model:", 0) == 0) model_line = line; };
    train_translator(o, false, hooks);
    CHECK(omp_get_max_threads() == before);
    CAPTURE(model_line);
    CHECK(model_line.find(before > 1 ? "1 thread (a step this small runs faster on one)" : "1 thread") != std::string::npos);
}

TEST_CASE("transformer-base is seed 001's model, and it trains on the CPU") {
    TrainOptions o = train_preset("transformer-base");
    CHECK(o.model.model_dim == 512);
    CHECK(o.model.heads == 8);
    CHECK(o.model.encoder_layers == 6);
    CHECK(o.model.decoder_layers == 6);
    CHECK(o.model.ffn_dim == 2048);
    CHECK(o.model.dropout == 0.1f);
    // The preset's model learning one small batch, seconds a step.
    o.out_dir = fresh_dir("transformer-base");
    o.corpus.bpe_merges = 300;
    o.corpus.max_train_sentences = 8;
    o.max_tokens = 512;
    o.warmup_steps = 2;
    o.max_steps = 12;
    o.log_every = 1;
    o.validate_every = 1000;
    TrainHooks hooks;
    std::string model_line;
    hooks.message = [&](const std::string& line) { if (line.rfind("model:", 0) == 0) model_line = line; };
    train_translator(o, false, hooks);
    CHECK(model_line.find("6+6 layers, C 512, 8 heads, ffn 2048") != std::string::npos);
    const std::vector<double> losses = attend_test::step_losses(o.out_dir);
    REQUIRE(losses.size() == 12);
    // Falling steadily, not by noise: the last three steps' mean well under the first three's.
    const double first3 = (losses[0] + losses[1] + losses[2]) / 3, last3 = (losses[9] + losses[10] + losses[11]) / 3;
    CHECK(last3 < first3 - 0.4);
    fs::remove_all(o.out_dir);
}
