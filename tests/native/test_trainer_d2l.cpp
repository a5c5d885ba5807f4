// The seeds' Tatoeba runs end to end through train_translator (what `attend train --preset ...` runs):
// transformer-d2l (200 epochs) and bahdanau-d2l (250 epochs) on the first 600 fra-eng pairs, then the seeds'
// four-sentence table; and an interrupted + resumed RNN run that ends exactly like an uninterrupted one.
//
// What any correct run guarantees, on any instruction set: a seeded run's trajectory depends on the CPU's float
// arithmetic (FMA contraction, SIMD width and summation order differ between AVX-512, AVX2 and SSE builds), so
// which of several equally good references a model settles on is not fixed. "go ." has three references in the
// training pairs ("va !", "marche .", "bouge !") and "i lost ." one ("j'ai perdu ."): each must translate to one
// of its own references. "i'm home ." is NOT among the first 600 pairs of this file (it is pair 621), so only
// that it opens like the references of the training sources "i'm ..." do ("je suis", "j'ai", "je vais", ...) is
// asserted; "he's calm ." is wrong in the seeds too.
#include <doctest/doctest.h>

#include "trainer_test_util.h"
#include "data/data_dir.h"
#include "data/tatoeba.h"
#include "text/bleu.h"
#include "train/trainer.h"
#include "translate/bahdanau_network.h"
#include "translate/d2l_examples.h"
#include "translate/transformer_network.h"
#include "translate/translator.h"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

using namespace attend;
namespace fs = std::filesystem;

namespace {

std::string fresh_dir(const std::string& name) { return attend_test::fresh_run_dir(name); }

// One thread: these models are tiny, and on a shared machine a second OpenMP thread only waits.
struct OneThread {
    int before = omp_get_max_threads();
    OneThread() { omp_set_num_threads(1); }
    ~OneThread() { omp_set_num_threads(before); }
};

// The training sources (d2l-preprocessed, space-joined) with every reference each has in the first 600 pairs,
// rare reference words read as <unk> as the model sees them.
using References = std::map<std::string, std::set<std::string>>;

References training_references(const Translator& t) {
    NmtData data = load_data_nmt(tatoeba_path(default_data_dir()), 10, 600);
    References refs;
    for (size_t i = 0; i < data.source.size(); i++) {
        std::string src, ref;
        for (const std::string& w : data.source[i]) src += (src.empty() ? "" : " ") + w;
        for (int id : t.model().target_vocab.ids(data.target[i]))
            ref += (ref.empty() ? "" : " ") + t.model().target_vocab.token(id);
        refs[src].insert(ref);
    }
    return refs;
}

// Share of the training sources whose greedy translation is one of their references.
double training_pairs_reproduced(const Translator& t, const References& refs) {
    TranslationOptions opt;
    opt.beam_size = 1;
    int hits = 0;
    for (const auto& [src, options] : refs) hits += options.count(t.translate(src, opt).tokenized) > 0;
    return double(hits) / refs.size();
}

// The first two words of a sentence ("je suis chez moi ." -> "je suis").
std::string opening(const std::string& sentence) {
    const size_t first = sentence.find(' ');
    return first == std::string::npos ? sentence : sentence.substr(0, sentence.find(' ', first + 1));
}

struct D2lRun {
    TrainResult result;
    TranslatorModel model;
    double seconds = 0;
};

D2lRun train_d2l(const std::string& preset) {
    OneThread one;
    TrainOptions o = train_preset(preset);
    o.out_dir = fresh_dir(preset);
    auto start = std::chrono::steady_clock::now();
    D2lRun run;
    run.result = train_translator(o, false);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.model = load_checkpoint(list_checkpoints(o.out_dir).back()).model;  // the final model, as the seeds use
    MESSAGE(preset << ": " << run.result.state.step << " steps in " << run.seconds << " s, the seeds' loss "
                   << run.result.epoch_loss_d2l << ", val BLEU " << run.result.val_bleu);
    return run;
}

void check_seed_table(const D2lRun& run, const std::string& preset, double min_reproduced) {
    CHECK(run.result.state.epoch == train_preset(preset).epochs);
    CHECK(run.result.epoch_loss_d2l < 0.1);  // the seeds print 0.033 (Transformer) and 0.020 (GRU) on their data
    Translator t(load_translator_model_bytes(save_translator_model(run.model, DType::F32), "d2l.safetensors"));
    std::vector<D2lExample> table = run_d2l_examples(t);
    for (const D2lExample& row : table) MESSAGE(format_d2l_example(row));
    REQUIRE(table.size() == 4);
    const References refs = training_references(t);
    REQUIRE(refs.at("go .") == std::set<std::string>{"va !"});  // d2l's file has the one
    REQUIRE(refs.at("i lost .") == std::set<std::string>{"j'ai perdu ."});
    // The seeds' table has both right. A seeded run's float results differ between instruction sets, and with them
    // which pairs of the 600 a tiny model gets word for word, so one of the two is asked for, and the share of all
    // pairs reproduced below.
    const bool go_right = refs.at("go .").count(table[0].translation) == 1;
    const bool lost_right = table[1].translation == "j'ai perdu .";
    CAPTURE(table[0].translation);
    CAPTURE(table[1].translation);
    CHECK((go_right || lost_right));
    std::set<std::string> im_openings;  // how the training references of "i'm ..." begin
    for (const auto& [src, options] : refs)
        if (src.rfind("i'm ", 0) == 0)
            for (const std::string& ref : options) im_openings.insert(opening(ref));
    REQUIRE(refs.at("i'm home .") == std::set<std::string>{"je suis chez moi ."});  // pair 350 of d2l's file
    REQUIRE(im_openings.count("je suis") == 1);
    CAPTURE(table[3].translation);
    CHECK(im_openings.count(opening(table[3].translation)) == 1);
    // The seeds' score: bleu(translation, reference, 2), 1 exactly when the translation is the seeds' reference.
    for (const D2lExample& row : table) {
        CAPTURE(row.translation);
        CHECK(row.bleu == doctest::Approx(bleu(row.translation, row.reference, 2)));
        CHECK((row.bleu == 1.0) == (row.translation == row.reference));
    }
    // Raw user text goes through the same preprocessing: "Go." is "go .".
    TranslationOptions greedy;
    greedy.beam_size = 1;
    CHECK(t.translate("Go.", greedy).text == table[0].translation);
    CHECK(t.translate("I lost.", greedy).text == table[1].translation);
    const double reproduced = training_pairs_reproduced(t, refs);
    MESSAGE("training sources translated to one of their references: " << reproduced);
    CHECK(reproduced >= min_reproduced);
}

}  // namespace

TEST_CASE("transformer-d2l trained like `attend train` reproduces the seeds' table (go . or i lost . -> one of its references; i'm home . -> je suis ...)") {
    const D2lRun run = train_d2l("transformer-d2l");
    CHECK(run.result.state.step == 2000);  // 200 epochs x ceil(600 / 64)
    const Transformer& model = network_as<TransformerNetwork>(*run.model.network, "test").model;
    CHECK(model.config.max_len == 10);
    CHECK_FALSE(model.config.tie_embeddings);
    check_seed_table(run, "transformer-d2l", 0.8);
}

TEST_CASE("bahdanau-d2l trained like `attend train` reproduces the seeds' table (go . or i lost . -> one of its references; i'm home . -> je suis ...)") {
    const D2lRun run = train_d2l("bahdanau-d2l");
    CHECK(run.result.state.step == 2500);  // 250 epochs x 10 batches
    const BahdanauSeq2Seq& model = network_as<BahdanauNetwork>(*run.model.network, "test").model;
    CHECK(model.config.num_steps == 10);
    CHECK(model.config.num_layers == 2);
    check_seed_table(run, "bahdanau-d2l", 0.8);
}

TEST_CASE("an interrupted bahdanau-d2l run resumed from its checkpoint ends exactly like an uninterrupted one") {
    OneThread one;
    auto options = [](const std::string& dir) {
        TrainOptions o = train_preset("bahdanau-d2l");
        o.out_dir = dir;
        o.max_steps = 14;  // crosses an epoch end (10 batches an epoch): validation, checkpoint, reshuffle
        o.validate_every = 1;
        o.val_bleu_sentences = 20;
        return o;
    };
    TrainOptions straight = options(fresh_dir("rnn-straight"));
    TrainResult a = train_translator(straight, false);
    REQUIRE(a.state.step == 14);

    TrainOptions split = options(fresh_dir("rnn-split"));
    std::atomic<bool> stop{false};
    TrainHooks hooks;
    hooks.stop = &stop;
    int steps = 0;
    hooks.progress = [&](const std::string&) { if (++steps == 12) stop = true; };
    TrainResult first = train_translator(split, false, hooks);
    CHECK(first.interrupted);
    CHECK(first.state.step == 12);
    // The seeds' presets hand over their final model, not one a validation slice picked: none yet.
    CHECK_FALSE(fs::exists(fs::path(split.out_dir) / "best.safetensors"));
    CHECK_FALSE(fs::exists(fs::path(split.out_dir) / "final.safetensors"));
    CHECK(first.final_model.empty());

    TrainResult second = train_translator(split, /*resume=*/true);
    CHECK_FALSE(second.interrupted);
    CHECK(second.state.step == 14);
    CHECK(second.final_model == (fs::path(split.out_dir) / "final.safetensors").string());
    CHECK(fs::exists(second.final_model));
    CHECK_FALSE(fs::exists(fs::path(split.out_dir) / "best.safetensors"));
    CHECK(second.last_loss == a.last_loss);  // bit-identical: same batches, same dropout masks, same Adam state

    Checkpoint ca = load_checkpoint(list_checkpoints(straight.out_dir).back());
    Checkpoint cb = load_checkpoint(list_checkpoints(split.out_dir).back());
    REQUIRE(ca.model.architecture() == "bahdanau");
    REQUIRE(cb.model.architecture() == "bahdanau");
    const ParameterStore& pa = ca.model.parameters();
    const ParameterStore& pb = cb.model.parameters();
    REQUIRE(pa.size() == pb.size());
    CHECK(std::memcmp(pa.values(), pb.values(), pa.size() * sizeof(float)) == 0);
    CHECK(ca.adam_m == cb.adam_m);
    CHECK(ca.adam_v == cb.adam_v);

    // A resume whose checkpoint holds another architecture is refused by name.
    TrainOptions other = train_preset("transformer-d2l");
    other.out_dir = split.out_dir;
    other.max_steps = 15;
    TrainResult third = train_translator(other, true);  // the checkpoint's own options win: still bahdanau
    CHECK(third.state.step == 15);
}

// A bidirectional encoder (`attend train --preset bahdanau-d2l --bidirectional`): 20 epochs lower the seeds' loss
// well below the first epoch's; the final model file records the option, holds the reverse GRU and the start
// projection, and translates after save -> load exactly as the model in memory; a resume keeps the option.
TEST_CASE("bahdanau-d2l --bidirectional: the loss falls, the model file records it, save/load/translate round-trips") {
    OneThread one;
    auto options = [](const std::string& dir, int epochs) {
        TrainOptions o = train_preset("bahdanau-d2l");
        o.rnn.bidirectional = true;
        o.out_dir = dir;
        o.epochs = epochs;
        return o;
    };
    const TrainResult first = train_translator(options(fresh_dir("rnn-bi-1"), 1), false);
    TrainOptions o = options(fresh_dir("rnn-bi-20"), 20);
    const TrainResult run = train_translator(o, false);
    MESSAGE("bidirectional bahdanau-d2l: the seeds' loss " << first.epoch_loss_d2l << " after 1 epoch, "
                                                            << run.epoch_loss_d2l << " after 20");
    CHECK(run.state.step == 200);
    CHECK(run.epoch_loss_d2l < 0.6 * first.epoch_loss_d2l);
    REQUIRE(fs::exists(run.final_model));

    std::ifstream in(run.final_model, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const SafeTensors file = SafeTensors::from_bytes(bytes);
    CHECK(nlohmann::json::parse(file.metadata().at("attend.config"))["bidirectional"] == true);
    CHECK(file.info("decoder.attention.W_k.weight").shape == std::vector<int64_t>{32, 64});
    CHECK(file.info("decoder.rnn.weight_ih_l0").shape == std::vector<int64_t>{96, 64 + 32});
    CHECK(file.info("decoder.init_state.1.weight").shape == std::vector<int64_t>{32, 64});
    CHECK(file.contains("encoder.rnn.weight_hh_l1_reverse"));

    Checkpoint last = load_checkpoint(list_checkpoints(o.out_dir).back());
    const Translator memory(std::move(last.model));
    const Translator loaded(load_translator_model_bytes(bytes, "bi.safetensors"));
    CHECK(network_as<BahdanauNetwork>(*loaded.model().network, "test").model.config.bidirectional);
    CHECK(loaded.info()["config"]["bidirectional"] == true);
    CHECK(loaded.model().network->description().find(", bidirectional encoder") != std::string::npos);
    TranslationOptions opt;
    opt.return_attention = true;
    for (int beam : {1, 3}) {
        opt.beam_size = beam;
        for (const char* text : {"Go.", "I lost.", "I'm home.", "He's calm."}) {
            CAPTURE(text);
            const TranslationResult a = memory.translate(text, opt), b = loaded.translate(text, opt);
            CHECK(!a.target_ids.empty());
            CHECK(a.target_ids == b.target_ids);
            CHECK(a.text == b.text);
            CHECK(a.log_prob == b.log_prob);
            CHECK(a.cross.data == b.cross.data);
        }
    }
    // The run's saved options decide the model: a resume whose request lacks the flag trains the same model further.
    o.epochs = 21;
    o.rnn.bidirectional = false;
    const TrainResult resumed = train_translator(o, /*resume=*/true);
    CHECK(resumed.state.step == 210);
    const Checkpoint after = load_checkpoint(list_checkpoints(o.out_dir).back());
    CHECK(network_as<BahdanauNetwork>(*after.model.network, "test").model.config.bidirectional);
}

TEST_CASE("d2l presets: the seeds' hyperparameters; unknown presets, losses and architectures are named") {
    TrainOptions t = train_preset("transformer-d2l");
    CHECK(t.corpus.dataset == "tatoeba");
    CHECK(t.corpus.max_train_sentences == 600);
    CHECK(t.corpus.min_freq == 2);
    CHECK_FALSE(t.corpus.joint_vocab);
    CHECK(t.model.model_dim == 32);
    CHECK(t.model.heads == 4);
    CHECK(t.model.encoder_layers == 2);
    CHECK(t.model.ffn_dim == 64);
    CHECK(t.model.dropout == doctest::Approx(0.1f));
    CHECK(t.num_steps == 10);
    CHECK(t.batch_size == 64);
    CHECK(t.lr == doctest::Approx(0.005f));
    CHECK(t.warmup_steps == 0);
    CHECK(t.clip_norm == 1.0f);
    CHECK(t.loss == "masked_softmax_ce");
    CHECK(t.epochs == 200);
    TrainOptions b = train_preset("bahdanau-d2l");
    CHECK(b.architecture == "bahdanau");
    CHECK(b.rnn.embed_size == 32);
    CHECK(b.rnn.num_hiddens == 32);
    CHECK(b.rnn.num_layers == 2);
    CHECK(b.epochs == 250);
    TrainOptions m = train_preset("bahdanau-multi30k");
    CHECK(m.architecture == "bahdanau");
    CHECK(m.corpus.dataset == "multi30k");
    CHECK(m.corpus.bpe_merges == 10000);
    CHECK(m.num_steps == 0);

    // JSON round trip keeps what shapes a run (a resume reads the options back from the checkpoint).
    TrainOptions back = train_options_from_json(train_options_to_json(b));
    CHECK(back.architecture == "bahdanau");
    CHECK(back.rnn.num_hiddens == 32);
    CHECK(back.num_steps == 10);
    CHECK(back.loss == "masked_softmax_ce");
    CHECK(back.init == "seeds");

    CHECK_THROWS_WITH(train_preset("bahdanau-huge"), doctest::Contains("bahdanau-d2l"));
    TrainOptions bad = train_preset("bahdanau-d2l");
    bad.out_dir = fresh_dir("bad");
    bad.loss = "hinge";
    CHECK_THROWS_WITH(train_translator(bad, false), doctest::Contains("loss 'hinge' is unknown"));
    bad.loss = "masked_softmax_ce";
    bad.architecture = "lstm";
    CHECK_THROWS_WITH(train_translator(bad, false), doctest::Contains("architecture 'lstm' is unknown"));
    bad.architecture = "bahdanau";
    bad.corpus.target_lang = "de";
    CHECK_THROWS_WITH(train_translator(bad, false), doctest::Contains("English -> French"));

    // A diverging RNN run stops naming the step.
    OneThread one;
    TrainOptions diverge = train_preset("bahdanau-d2l");
    diverge.out_dir = fresh_dir("rnn-diverge");
    diverge.lr = 1e38f;  // Adam moves every weight by about lr: the dense layer's sums overflow to inf
    diverge.max_steps = 20;
    CHECK_THROWS_WITH(train_translator(diverge, false), doctest::Contains("at step"));

    // The seeds' print format of the table.
    CHECK(format_d2l_example({"go .", "va !", "va !", 1.0}) == "go . => va !,  bleu 1.000");
    CHECK(format_d2l_example({"he's calm .", "il est calme .", "il est mouillé .", 0.6580370064762462}) ==
          "he's calm . => il est mouillé .,  bleu 0.658");
    CHECK(bleu("il est mouillé .", "il est calme .", 2) == doctest::Approx(0.658).epsilon(1e-3));  // the seeds' 0.658
}

TEST_CASE("bahdanau-multi30k (shrunk): token batches and label-smoothed cross entropy train, checkpoint and resume exactly") {
    OneThread one;
    auto options = [](const std::string& dir) {
        TrainOptions o = train_preset("bahdanau-multi30k");
        o.corpus.bpe_merges = 300;
        o.corpus.max_train_sentences = 400;
        o.rnn.embed_size = 16;
        o.rnn.num_hiddens = 16;
        o.max_tokens = 600;
        o.max_steps = 6;
        o.val_bleu_sentences = 8;
        o.out_dir = dir;
        return o;
    };
    TrainOptions straight = options(fresh_dir("m30k-straight"));
    TrainResult a = train_translator(straight, false);
    REQUIRE(a.state.step == 6);
    CHECK(std::isfinite(a.last_loss));
    CHECK(a.last_loss > 0);

    TrainOptions split = options(fresh_dir("m30k-split"));
    std::atomic<bool> stop{false};
    TrainHooks hooks;
    hooks.stop = &stop;
    int steps = 0;
    hooks.progress = [&](const std::string&) { if (++steps == 3) stop = true; };
    CHECK(train_translator(split, false, hooks).state.step == 3);
    TrainResult b = train_translator(split, true);
    CHECK(b.state.step == 6);
    CHECK(b.last_loss == a.last_loss);
    Checkpoint c = load_checkpoint(list_checkpoints(split.out_dir).back());
    CHECK(network_as<BahdanauNetwork>(*c.model.network, "test").model.config.num_steps == 0);  // sources are not padded to a fixed length
    CHECK(c.model.source_pipeline.type == TextPipelineType::moses_bpe);
    CHECK(c.model.source_pipeline.bpe.has_value());
    Translator t(std::move(c.model));
    TranslationOptions opt;
    opt.beam_size = 2;
    opt.return_attention = true;
    TranslationResult r = t.translate("A dog runs on the beach.", opt);
    CHECK(r.cross.layers == 1);
    CHECK(r.cross.cols == static_cast<int>(r.source_tokens.size()));
}
