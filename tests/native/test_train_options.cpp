// TrainOptions as a checkpoint saves them and `attend train` builds them: a JSON round trip is the identity, a key
// that is missing (options saved before it existed) takes the default, the defaults are the default preset's, and
// each flag sets its fields over the preset's.
#include <doctest/doctest.h>

#include "data/data_dir.h"
#include "train/checkpoint.h"
#include "train/presets.h"
#include "train/trainer.h"
#include "trainer_test_util.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

using namespace attend;
using json = nlohmann::json;

TEST_CASE("train options: a JSON round trip of every preset is the identity; out_dir and threads stay out") {
    for (const std::string& name : train_preset_names()) {
        CAPTURE(name);
        TrainOptions o = train_preset(name);
        o.threads = 3;
        const json j = train_options_to_json(o);
        CHECK(train_options_to_json(train_options_from_json(j)) == j);
        CHECK_FALSE(j.contains("out_dir"));
        CHECK_FALSE(j.contains("threads"));
        CHECK_FALSE(j["corpus"].contains("data_dir"));
        const TrainOptions back = train_options_from_json(j);
        CHECK(back.architecture == o.architecture);
        CHECK(back.lr == o.lr);
        CHECK(back.max_steps == o.max_steps);
        CHECK(back.seed == o.seed);
        CHECK(back.model.model_dim == o.model.model_dim);
        CHECK(back.rnn.num_hiddens == o.rnn.num_hiddens);
        CHECK(back.corpus.dataset == o.corpus.dataset);
    }
}

TEST_CASE("train options: keys that are missing take the defaults, at every level") {
    CHECK(train_options_to_json(train_options_from_json(json::object())) == train_options_to_json(TrainOptions{}));

    const json partial = {{"preset", "mine"},
                          {"lr", 0.25},
                          {"seed", 9},
                          {"model", {{"model_dim", 64}, {"heads", 8}}},
                          {"rnn", {{"num_hiddens", 48}}},
                          {"corpus", {{"dataset", "tatoeba"}}}};
    const TrainOptions o = train_options_from_json(partial);
    const TrainOptions d;
    CHECK(o.preset == "mine");
    CHECK(o.lr == 0.25f);
    CHECK(o.seed == 9);
    CHECK(o.warmup_steps == d.warmup_steps);
    CHECK(o.cooldown_epochs == 0);  // saved without a cooldown: none
    CHECK(o.architecture == "transformer");
    CHECK(o.device == "cpu");
    CHECK(o.epochs == d.epochs);
    // A nested config missing keys: its own type's defaults (a model file's config reads the same way).
    CHECK(o.model.model_dim == 64);
    CHECK(o.model.heads == 8);
    CHECK(o.model.encoder_layers == TransformerConfig{}.encoder_layers);
    CHECK(o.rnn.num_hiddens == 48);
    CHECK(o.rnn.embed_size == BahdanauConfig{}.embed_size);
    CHECK(o.corpus.dataset == "tatoeba");
    CHECK(o.corpus.bpe_merges == CorpusOptions{}.bpe_merges);

    CHECK_THROWS(train_options_from_json({{"lr", "fast"}}));
    CHECK_THROWS_WITH(train_options_from_json({{"model", {{"heads", 3}, {"model_dim", 64}}}}),
                      doctest::Contains("model_dim 64 is not a multiple of heads 3"));
}

TEST_CASE("train options: the defaults are the default preset's, apart from its name and cooldown") {
    CHECK(train_preset_names().front() == "transformer-tiny");
    TrainOptions tiny = train_preset("transformer-tiny");
    CHECK(tiny.preset == "transformer-tiny");
    CHECK(tiny.cooldown_epochs == 25);
    tiny.preset = TrainOptions{}.preset;
    tiny.cooldown_epochs = TrainOptions{}.cooldown_epochs;
    CHECK(train_options_to_json(tiny) == train_options_to_json(TrainOptions{}));
}

namespace {

struct Run {
    int status = -1;
    std::string output;
};

Run attend_train(const std::string& args) {
    const std::string command = std::string("'") + ATTEND_CLI_PATH + "' train " + args + " 2>&1 < /dev/null";
    Run r;
    std::FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.output.append(buffer, n);
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace

TEST_CASE("attend train: each flag given sets its fields over the preset's; the others keep the preset's") {
    const std::string out = attend_test::fresh_run_dir("flags");
    const Run r = attend_train("--preset bahdanau-d2l --data '" + default_data_dir() + "' --out '" + out +
                               "' --max-steps 1 --max-sentences 64 --layers 1 --dim 16 --embed 8 --dropout 0.25 "
                               "--lr 0.002 --seed 5 --keep 2 --cooldown-epochs 3 --threads 1");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    const TrainOptions o = train_options_from_json(load_newest_checkpoint(out).checkpoint.options);
    const TrainOptions preset = train_preset("bahdanau-d2l");
    CHECK(o.rnn.num_layers == 1);
    CHECK(o.model.encoder_layers == 1);  // --layers: both architectures' layers
    CHECK(o.model.decoder_layers == 1);
    CHECK(o.rnn.num_hiddens == 16);      // --dim: the GRU's hidden size and the Transformer's C
    CHECK(o.model.model_dim == 16);
    CHECK(o.rnn.embed_size == 8);
    CHECK(o.rnn.dropout == 0.25f);       // --dropout: both
    CHECK(o.model.dropout == 0.25f);
    CHECK(o.lr == 0.002f);
    CHECK(o.seed == 5);
    CHECK(o.keep_checkpoints == 2);
    CHECK(o.cooldown_epochs == 3);
    CHECK(o.max_steps == 1);
    CHECK(o.corpus.max_train_sentences == 64);
    // Not given: the preset's.
    CHECK(o.warmup_steps == preset.warmup_steps);
    CHECK(o.epochs == preset.epochs);
    CHECK(o.clip_norm == preset.clip_norm);
    CHECK(o.label_smoothing == preset.label_smoothing);
    CHECK(o.corpus.source_lang == preset.corpus.source_lang);
    CHECK(o.validate_every == preset.validate_every);
    std::filesystem::remove_all(out);
}
