// The character language model's training session held in memory (train/lm_training.h), what the browser trains
// with, against native `attend lm train`'s epochs (train/lm_trainer.h) on The Time Machine: over the same preset,
// seed and text they make the same batches and train the same parameters, bit for bit, across an epoch's end, with
// either iterator. And the session's refusals of text it cannot train on.
#include <doctest/doctest.h>

#include "trainer_test_util.h"
#include "data/data_dir.h"
#include "data/text_file.h"
#include "train/lm_trainer.h"
#include "train/lm_training.h"
#include "train/trainer.h"

#include <omp.h>

#include <cstring>
#include <string>
#include <vector>

using namespace attend;

namespace {

std::string time_machine() { return read_file_bytes(default_data_dir() + "/timemachine/timemachine.txt"); }

// `attend lm train --preset NAME --seed SEED [--random-iter] --epochs EPOCHS --chars CHARS` as its run_train sets it
// up, against a session over the same text; each batch's loss, each epoch's perplexity and the parameters compared.
void check_same_training(const std::string& name, uint64_t seed, bool random_iter, int epochs, int chars) {
    const LmPreset& preset = lm_preset(name);
    const std::string text = time_machine();
    LmTrainOptions o = preset.train;
    o.seed = seed;
    o.random_iter = random_iter;
    o.epochs = epochs;

    LmText book = lm_text(text, 0);
    book.ids.resize(size_t(chars));
    CharLmConfig config = preset.model;
    config.vocab_size = int(book.vocab.size());
    CharLm native(config);
    native.allocate(true);
    native.init_parameters(seed);
    const int before = omp_get_max_threads();
    omp_set_num_threads(training_threads(int64_t(native.parameters().size()), int64_t(o.batch) * o.steps, before));
    std::vector<double> native_losses;
    std::vector<double> native_perplexities;
    for (int e = 1; e <= epochs; ++e)
        native_perplexities.push_back(
            lm_train_epoch(native, book.ids, o, e, [&](const LmBatchResult& r) { native_losses.push_back(r.loss); })
                .perplexity);

    LmTrainingSession session(preset, text, o, chars);
    CHECK(session.model().vocab.id_to_token() == book.vocab.id_to_token());
    CHECK(session.corpus() == book.ids);
    std::vector<double> losses, perplexities;
    while (session.epochs_done() < epochs) {
        const LmSessionStep s = session.step();
        CHECK(s.step == int64_t(losses.size()) + 1);
        CHECK(s.batches == session.batches_per_epoch());
        losses.push_back(s.result.loss);
        if (s.epoch_done) perplexities.push_back(session.epoch_perplexity());
    }
    omp_set_num_threads(before);
    REQUIRE(losses.size() == native_losses.size());
    CHECK(losses.size() >= 2 * size_t(epochs));
    for (size_t i = 0; i < losses.size(); ++i) CHECK(losses[i] == native_losses[i]);
    CHECK(perplexities == native_perplexities);
    const ParameterStore& a = native.parameters();
    const ParameterStore& b = session.model().network->parameters();
    REQUIRE(a.size() == b.size());
    CHECK(std::memcmp(a.values(), b.values(), a.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("an lm training session trains what attend lm train trains: gru-d2l, sequential batches, two epochs") {
    check_same_training("gru-d2l", 1, false, 2, 10000);  // 8 batches an epoch
}

TEST_CASE("an lm training session trains what attend lm train trains: deep-lstm-d2l, random sampling") {
    check_same_training("deep-lstm-d2l", 7, true, 2, 3000);  // 2 batches an epoch
}

TEST_CASE("an lm training session refuses text it cannot train on, by name") {
    const LmPreset& preset = lm_preset("gru-d2l");
    auto error = [&](const std::string& text, int64_t chars = 10000) {
        return attend_test::error_of([&] { LmTrainingSession s(preset, text, preset.train, chars); });
    };
    CHECK(error("").find("the text is empty") != std::string::npos);
    CHECK(error("time \xff traveller").find("invalid UTF-8") != std::string::npos);
    CHECK(error("1234 !!! 5678").find("no letters") != std::string::npos);
    const std::string short_text = error(std::string(1000, 'a'));
    CHECK(short_text.find("too short") != std::string::npos);
    CHECK(short_text.find("need at least 1156") != std::string::npos);  // 32 x 35 + 35 + 1
    CHECK(error(std::string(kLmMaxTextBytes + 1, 'a')).find("more than the 64 MiB") != std::string::npos);
    CHECK(error(time_machine(), -1).find("chars must be") != std::string::npos);
    LmTrainOptions o = preset.train;
    o.lr = 0;
    CHECK(attend_test::error_of([&] { LmTrainingSession s(preset, "abc", o, 0); }).find("lr must be") !=
          std::string::npos);
    CHECK(attend_test::error_of([] { lm_preset("gpt"); }).find("rnn-d2l, gru-d2l") != std::string::npos);
}

TEST_CASE("an lm training session predicts as d2l's predict_ch8 and learns its text") {
    const LmPreset& preset = lm_preset("gru-d2l");
    LmTrainingSession session(preset, time_machine(), preset.train, preset.max_tokens);
    const std::string before = session.predict("time traveller", 20);
    CHECK(before.rfind("time traveller", 0) == 0);
    CHECK(before.size() >= 14 + 20);  // each generated id a character, or "<unk>"
    CHECK(session.predict("time traveller", 20) == before);  // greedy: the same again
    std::vector<double> perplexities;
    while (session.epochs_done() < 3)
        if (session.step().epoch_done) perplexities.push_back(session.epoch_perplexity());
    CHECK(perplexities[2] > 1);
    CHECK(perplexities[2] < perplexities[0]);
    CHECK(session.predict("time traveller", 0) == "time traveller");
    CHECK(attend_test::error_of([&] { session.predict("", 5); }).find("prefix is empty") != std::string::npos);
    CHECK(attend_test::error_of([&] { session.predict("a", -1); }).find("length must be") != std::string::npos);
}
