// The training session held in memory (train/training_session.h), what the browser trains with, against the native
// trainer: over the same options and corpus they train the same parameters, bit for bit, on both batch layouts
// (the seeds' shuffled sentence batches and token-budget batches), across an epoch's end.
#include <doctest/doctest.h>

#include "trainer_test_util.h"
#include "train/checkpoint.h"
#include "train/presets.h"
#include "train/trainer.h"
#include "train/training_session.h"
#include "train/translation_corpus.h"
#include "train/words_corpus.h"
#include "data/data_dir.h"
#include "data/tatoeba.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <filesystem>
#include <string>

using namespace attend;

namespace {

// Trains `o` for `steps` steps natively (into a fresh folder) and in a session, on the threads the native run
// chooses, and compares the parameters and the last step's loss.
void check_same_training(TrainOptions o, int steps) {
    o.max_steps = steps;
    o.validate_every = 1000;
    o.checkpoint_every = 1000;
    o.out_dir = attend_test::fresh_run_dir("session-native-" + o.preset);
    const TrainResult native = train_translator(o, false);
    REQUIRE(native.state.step == steps);
    const Checkpoint saved = load_checkpoint(list_checkpoints(o.out_dir).back());

    TrainingSession session(o, prepare_corpus(o.corpus));
    const int before = omp_get_max_threads();
    omp_set_num_threads(training_threads(int64_t(session.model().parameters().size()), tokens_per_batch(o), before));
    SessionStep last;
    int epochs_done = 0;
    for (int i = 0; i < steps; i++) {
        last = session.step();
        epochs_done += last.epoch_done;
    }
    omp_set_num_threads(before);
    CHECK(last.step == steps);
    CHECK(epochs_done >= 1);  // the batches of a second epoch came from the seed too
    CHECK(session.epochs_done() == epochs_done);
    CHECK(session.epoch_loss() > 0);
    CHECK(last.loss.mean == native.last_loss);
    const ParameterStore& a = saved.model.parameters();
    const ParameterStore& b = session.model().parameters();
    REQUIRE(a.size() == b.size());
    CHECK(std::memcmp(a.values(), b.values(), a.size() * sizeof(float)) == 0);
    std::filesystem::remove_all(o.out_dir);
}

}  // namespace

TEST_CASE("a training session trains what the native trainer trains: the seeds' GRU + Bahdanau, sentence batches") {
    check_same_training(train_preset("bahdanau-d2l"), 12);  // 600 pairs in batches of 64: 10 an epoch
}

TEST_CASE("a training session trains what the native trainer trains: a small Transformer, token batches") {
    TrainOptions o = attend_test::small_transformer_run("", 1000);
    o.preset = "small-transformer";
    o.corpus.max_train_sentences = 120;  // a few batches an epoch
    o.epochs = 3;
    check_same_training(o, 8);
}

TEST_CASE("a training session refuses a corpus without training pairs and a loss that is not finite") {
    TrainOptions o = train_preset("bahdanau-d2l");
    TranslationCorpus corpus = prepare_corpus(o.corpus);
    TranslationCorpus empty = corpus;
    empty.train_source.clear();
    empty.train_target.clear();
    CHECK(attend_test::error_of([&] { TrainingSession s(o, empty); }).find("no training pairs") != std::string::npos);
    TrainingSession broken(o, corpus);
    ParameterStore& params = broken.model().parameters();
    std::fill_n(params.values(), params.size(), std::numeric_limits<float>::quiet_NaN());
    CHECK(attend_test::error_of([&] { broken.step(); }).find("the training loss became NaN at step 1") !=
          std::string::npos);
    CHECK(broken.steps() == 0);
}

TEST_CASE("the seeds' word corpus from pairs in memory is load_data_nmt's: the same words, vocabularies and ids") {
    const std::string path = tatoeba_path(default_data_dir());
    const NmtData nmt = load_data_nmt(path, 10, 600);
    const TatoebaPairs read = read_tatoeba(path, 600);
    std::vector<SentencePair> pairs;
    for (size_t i = 0; i < read.english.size(); i++) pairs.push_back({read.english[i], read.french[i]});
    const TranslationCorpus c = words_corpus(pairs, 500, 100, 2, Lang::en, Lang::fr);
    REQUIRE(c.train_source.size() == 500);
    REQUIRE(c.val_source.size() == 100);
    // Vocabularies of the 500 training pairs: ids of the words load_data_nmt read for those pairs.
    for (size_t i = 0; i < 500; i++) {
        CHECK(c.train_source[i] == c.source_vocab.ids(nmt.source[i]));
        CHECK(c.train_target[i] == c.target_vocab.ids(nmt.target[i]));
    }
    CHECK(c.val_source[0] == c.source_vocab.ids(nmt.source[500]));
    const TranslationCorpus all = words_corpus(pairs, 600, 0, 2, Lang::en, Lang::fr);
    CHECK(all.source_vocab.size() == nmt.src_vocab.size());
    CHECK(all.target_vocab.size() == nmt.tgt_vocab.size());
    CHECK(all.source_vocab.tokens(all.train_source[7]) == nmt.src_vocab.tokens(nmt.src_vocab.ids(nmt.source[7])));
    pairs[3].target = "\xff";
    CHECK(attend_test::error_of([&] { words_corpus(pairs, 10, 0, 2, Lang::en, Lang::fr); }).find("sentence pair 4") !=
          std::string::npos);
    CHECK(attend_test::error_of([&] { words_corpus({}, 10, 0, 2, Lang::en, Lang::fr); }).find("no sentence pairs") !=
          std::string::npos);
}
