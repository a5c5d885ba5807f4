// TrainOptions as a checkpoint saves them: a JSON round trip is the identity, a key that is missing (options saved
// before it existed) takes the default, and the defaults are the default preset's. (How `attend train` sets them over
// a preset: test_cli_options.cpp.)
#include <doctest/doctest.h>

#include "train/presets.h"
#include "train/trainer.h"

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
        CHECK_FALSE(j.contains("overwrite"));
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

TEST_CASE("train options: transformer-tiny-cased-wu is the command line of the shipped en-de and en-fr cards") {
    // attend train --preset transformer-tiny-cased --lr 5e-3 --warmup 2000 --max-tokens 8192 --dropout 0.3
    //   --attention-dropout 0 --epochs 125 --cooldown-epochs 0 --validate-every 5 --average-last 10 --keep 10
    TrainOptions card = train_preset("transformer-tiny-cased");
    card.lr = 5e-3f;
    card.warmup_steps = 2000;
    card.max_tokens = 8192;
    card.model.dropout = 0.3f;
    card.model.attention_dropout = 0.0f;
    card.epochs = 125;
    card.cooldown_epochs = 0;
    card.validate_every = 5;
    card.average_last = 10;
    card.keep_checkpoints = 10;
    TrainOptions wu = train_preset("transformer-tiny-cased-wu");
    CHECK(wu.preset == "transformer-tiny-cased-wu");
    CHECK(wu.corpus.cased);
    CHECK(wu.corpus.split_digits);
    wu.preset = card.preset;
    wu.out_dir = card.out_dir;
    CHECK(train_options_to_json(wu) == train_options_to_json(card));
}
