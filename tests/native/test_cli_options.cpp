// The attend program refuses an option value outside its range with one readable line naming the option, the
// rule and the value, before doing any work; defaults that mean "the preset's" stay untouched, and a flag given to
// attend train sets its fields over the preset's. Each translate flag does what it says.
#include <doctest/doctest.h>

#include "attend_version.h"
#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/text_file.h"
#include "io/safetensors.h"
#include "text/utf8.h"
#include "train/checkpoint.h"
#include "train/gemm.h"
#include "train/native_gemm.h"
#include "train/presets.h"
#include "train/trainer.h"
#include "translate/asides.h"
#include "translate/clause_join.h"
#include "translate/model_file.h"
#include "translate/translator.h"
#include "cli_test_util.h"
#include "trainer_test_util.h"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace {

using attend_test::Run;
using attend_test::run_attend;

// Fails with `message` in the output and a non-zero exit status; never CLI11's numeric range dump.
void check_refused(const std::string& args, const std::string& message) {
    CAPTURE(args);
    const Run r = run_attend(args);
    CAPTURE(r.output);
    CHECK(r.status != 0);
    CHECK(r.status != -1);
    CHECK(r.output.find(message) != std::string::npos);
    CHECK(r.output.find("1.79769") == std::string::npos);
}

// Named after the process: test runs of other checkouts may share the folder.
const std::string kTmp = std::string(P_tmpdir) + "/attend_test_" + std::to_string(getpid()) + "_";

}  // namespace

TEST_CASE("attend train: every numeric option is range-checked before any work") {
    check_refused("train --max-steps -5 --epochs -1", "--epochs: must be at least 1, got -1");
    check_refused("train --max-steps -5", "--max-steps: must be at least 0, got -5");
    check_refused("train --epochs 0", "--epochs: must be at least 1, got 0");
    check_refused("train --keep-model sometimes", "--keep-model");
    check_refused("train --dim -8", "--dim: must be at least 1, got -8");
    check_refused("train --dim 100000", "--dim: must be at most 16384, got 100000");
    check_refused("train --threads -2", "--threads: must be at least 1, got -2");
    check_refused("train --lr nan", "--lr: must be a finite number, got nan");
    check_refused("train --lr 0", "--lr: must be greater than 0, got 0");
    check_refused("train --dropout 1", "--dropout: must be in [0, 1), got 1");
    check_refused("train --attention-dropout -0.5", "--attention-dropout: must be in [0, 1), got -0.5");
    check_refused("train --label-smoothing -0.1", "--label-smoothing: must be in [0, 1), got -0.1");
    check_refused("train --clip -1", "--clip: must be at least 0, got -1");
    check_refused("train --heads 0", "--heads: must be at least 1, got 0");
    check_refused("train --ffn 1000000", "--ffn: must be at most 65536, got 1000000");
    check_refused("train --layers 0", "--layers: must be at least 1, got 0");
    check_refused("train --max-tokens 0", "--max-tokens: must be at least 1, got 0");
    check_refused("train --batch-size 0", "--batch-size: must be at least 1, got 0");
    check_refused("train --keep 0", "--keep: must be at least 1, got 0");
    check_refused("train --log-every 0", "--log-every: must be at least 1, got 0");
    check_refused("train --warmup -1", "--warmup: must be at least 0, got -1");
    check_refused("train --seed -3", "--seed: must be at least 1, got -3");
    // The combination is the model's rule, checked before the data is read.
    const std::string out = kTmp + "cli_run";
    check_refused("train --out '" + out + "' --dim 30 --heads 4", "model_dim 30 is not a multiple of heads 4");
    check_refused("train --preset bahdanau-d2l --out '" + out + "' --dropout 0.5 --embed 20000",
                  "--embed: must be at most 16384, got 20000");
    check_refused("train --preset bahdanau-d2l --out '" + out + "' --attention-dropout 0",
                  "--attention-dropout is a Transformer option");
    check_refused("train --preset transformer-d2l --out '" + out + "' --bidirectional",
                  "--bidirectional is a bahdanau option");
    check_refused("train --out '" + out + "' --precision bf16 --device cpu", "--precision bf16 is for --device cuda");
    check_refused("train --out '" + out + "' --precision tf32", "--precision tf32 is for --device cuda");
    check_refused("train --precision fp16", "--precision: fp16 not in {fp32,tf32,bf16}");
}

TEST_CASE("attend train: each flag given sets its fields over the preset's; the others keep the preset's") {
    using namespace attend;
    const std::string out = attend_test::fresh_run_dir("flags");
    const Run r = run_attend("train --preset bahdanau-d2l --data '" + default_data_dir() + "' --out '" + out +
                             "' --max-steps 1 --max-sentences 64 --layers 1 --dim 16 --embed 8 --dropout 0.25 "
                             "--lr 0.002 --seed 5 --keep 2 --keep-model best --cooldown-epochs 3 --threads 1");
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
    CHECK(o.keep_model == "best");  // the preset's is "final"
    CHECK(preset.keep_model == "final");
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

TEST_CASE("attend train --resume: the run's own length and cooldown unless named anew; a --max-steps reached is refused") {
    using namespace attend;
    const std::string out = attend_test::fresh_run_dir("resume_length");
    const std::string run = "train --preset transformer-tiny --data '" + default_data_dir() + "' --out '" + out + "' ";
    const auto saved = [&] { return train_options_from_json(load_newest_checkpoint(out).checkpoint.options); };
    Run r = run_attend(run + "--max-steps 1 --max-sentences 64 --layers 1 --dim 16 --heads 2 --ffn 32 --bpe 100 "
                             "--epochs 7 --cooldown-epochs 3 --threads 1");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    REQUIRE(saved().epochs == 7);

    r = run_attend(run + "--resume --max-steps 2 --threads 1");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    CHECK(saved().epochs == 7);  // not the preset's 125
    CHECK(saved().cooldown_epochs == 3);

    r = run_attend(run + "--resume --max-steps 3 --epochs 9 --cooldown-epochs 0 --threads 1");
    REQUIRE(r.status == 0);
    CHECK(saved().epochs == 9);
    CHECK(saved().cooldown_epochs == 0);

    // A limit the run has reached takes no step: it is refused, and the run stays where it was.
    for (const char* limit : {"3", "2"}) {
        CAPTURE(limit);
        check_refused(run + "--resume --threads 1 --max-steps " + limit,
                      "--max-steps " + std::string(limit) + ": " + checkpoint_path(out, 3) + " is already at step 3");
        CHECK(load_newest_checkpoint(out).checkpoint.state.step == 3);
    }
    std::filesystem::remove_all(out);
}

TEST_CASE("attend train --encoder-layers, --decoder-layers: each side its own depth, over --layers") {
    using namespace attend;
    const std::string out = attend_test::fresh_run_dir("side_layers");
    const Run r = run_attend("train --preset transformer-tiny --data '" + default_data_dir() + "' --out '" + out +
                             "' --max-steps 1 --max-sentences 64 --layers 2 --encoder-layers 3 --decoder-layers 1 "
                             "--dim 16 --heads 2 --ffn 32 --bpe 100 --threads 1");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("Transformer 3+1 layers") != std::string::npos);
    const TrainOptions o = train_options_from_json(load_newest_checkpoint(out).checkpoint.options);
    CHECK(o.model.encoder_layers == 3);
    CHECK(o.model.decoder_layers == 1);
    check_refused("train --encoder-layers 0", "--encoder-layers: must be at least 1, got 0");
    std::filesystem::remove_all(out);
}

TEST_CASE("attend train --attention-dropout: the Transformer's attention weights get their own rate") {
    using namespace attend;
    const std::string out = attend_test::fresh_run_dir("attention_dropout");
    const Run r = run_attend("train --preset transformer-tiny --data '" + default_data_dir() + "' --out '" + out +
                             "' --max-steps 1 --max-sentences 64 --layers 1 --dim 16 --heads 2 --ffn 32 --bpe 100 "
                             "--dropout 0.25 --attention-dropout 0 --threads 1");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("attention dropout 0.00, dropout 0.25") != std::string::npos);
    const TrainOptions o = train_options_from_json(load_newest_checkpoint(out).checkpoint.options);
    REQUIRE(o.model.attention_dropout.has_value());
    CHECK(*o.model.attention_dropout == 0.0f);
    CHECK(o.model.dropout == 0.25f);
    CHECK_FALSE(train_preset("transformer-tiny").model.attention_dropout.has_value());  // not given: --dropout's
    std::filesystem::remove_all(out);
}

TEST_CASE("attend eval, export, info, translate: a folder as the model says so; numbers are range-checked") {
    const std::string dir = std::string(P_tmpdir);
    check_refused("eval -m '" + dir + "'", "is a directory, expected a model file");
    check_refused("info '" + dir + "'", "is a directory, expected a model file");
    check_refused("translate -m '" + dir + "' -t 'a dog'", "is a directory, expected a model file");
    check_refused("eval -m model.safetensors --threads 0", "--threads: must be at least 1, got 0");
    check_refused("eval -m model.safetensors -b 0", "--beam: must be at least 1, got 0");
    check_refused("eval -m model.safetensors --length-penalty inf", "--length-penalty: must be a finite number, got inf");
    check_refused("eval -m model.safetensors --limit -1", "--limit: must be at least 0, got -1");
    check_refused("export run -o x.safetensors --average -2", "--average: must be at least 0, got -2");
    check_refused("translate -m model.safetensors -t 'a dog' --batch 0", "--batch: must be at least 1, got 0");
}

// Several checkpoints or model files of one model export as their mean (checkpoint means taken at different points of
// a run, averaged); files of other tensors, pipelines or vocabularies are refused, not averaged.
TEST_CASE("attend export: several files of one model give their element-wise mean; others are refused") {
    // Dropout is no part of the weights' meaning: a fine-tuning with another may be averaged with its start.
    using namespace attend;
    const std::string source = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string a = kTmp + "mean-a.safetensors", b = kTmp + "mean-b.safetensors", mean = kTmp + "mean.safetensors";
    TranslatorModel m = load_translator_model(SafeTensors::from_file(source));
    write_file_atomically(a, save_translator_model(m, DType::F32));
    const std::vector<float> first(m.parameters().values(), m.parameters().values() + m.parameters().size());
    for (size_t i = 0; i < first.size(); i++) m.parameters().values()[i] = first[i] * -3.0f + 0.25f;
    {  // b trained with another dropout
        const SafeTensors saved = SafeTensors::from_bytes(save_translator_model(m, DType::F32));
        SafeTensorsWriter w;
        for (const auto& [key, value] : saved.metadata()) {
            nlohmann::json j = key == "attend.config" ? nlohmann::json::parse(value) : nlohmann::json();
            if (j.is_object()) j["dropout"] = 0.05;
            w.set_metadata(key, j.is_object() ? j.dump() : value);
        }
        for (const std::string& name : saved.names()) {
            const TensorInfo& t = saved.info(name);
            w.add_raw(name, t.dtype, t.shape, saved.raw(name), t.end - t.begin);
        }
        w.write_file(b);
    }

    const Run run = run_attend("export '" + a + "' '" + b + "' --dtype f32 -o '" + mean + "'");
    CAPTURE(run.output);
    REQUIRE(run.status == 0);
    const TranslatorModel averaged = load_translator_model(SafeTensors::from_file(mean));
    const TranslatorModel second = load_translator_model(SafeTensors::from_file(b));
    REQUIRE(averaged.parameters().size() == first.size());
    size_t wrong = 0;
    for (size_t i = 0; i < first.size(); i++) {
        const double want = (double{first[i]} + double{second.parameters().values()[i]}) / 2;
        wrong += averaged.parameters().values()[i] != static_cast<float>(want);
    }
    CHECK(wrong == 0);
    CHECK(averaged.card["averaged_files"] == 2);
    CHECK(second.config_json()["dropout"].get<float>() == 0.05f);  // the files differ in dropout, not in shape
    CHECK(averaged.source_vocab.id_to_token() == m.source_vocab.id_to_token());

    const std::string other = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-de-en-cased.safetensors";
    check_refused("export '" + a + "' '" + other + "' -o '" + mean + "'", "another text pipeline");
    const std::string fr = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-fr-en-cased.safetensors";
    check_refused("export '" + a + "' '" + fr + "' -o '" + mean + "'", "other tensors (architecture, names or shapes)");
    check_refused("export '" + a + "' '" + P_tmpdir + "' -o '" + mean + "'", "a folder; several inputs must be");
    check_refused("export '" + a + "' '" + b + "' --average 2 -o '" + mean + "'", "--average takes one run folder");
    for (const std::string& f : {a, b, mean}) std::remove(f.c_str());
}

TEST_CASE("attend translate: words the translation may have left out are named, a warning but not a failed line") {
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    // en-de writes "Der Hund rennt.": the man is left out (gain +0.17 on the models' measurements; models.json's
    // threshold for it is 0.15).
    const Run run = run_attend("translate -m '" + model + "' -t \"The man's dog is running.\" --json --omission-gain 0.15");
    CAPTURE(run.output);
    CHECK(run.status == 0);
    CHECK(run.output.find("attend: warning: line 1: the translation may have left out \"man\"") != std::string::npos);
    const size_t brace = run.output.find('{');
    const nlohmann::json j = nlohmann::json::parse(run.output.substr(brace, run.output.find('\n', brace) - brace));
    CHECK(j["omitted"] == nlohmann::json::array({"man"}));
    REQUIRE(j["source_word_gains"].size() == 3);  // man, dog, running: "The", "'s", "is" are closed-class words
    CHECK(j["source_word_gains"][1]["word"] == "dog");
    CHECK(j["source_word_gains"][1]["gain"].get<float>() < 0.0f);
    const Run off = run_attend("translate -m '" + model + "' -t \"The man's dog is running.\" --json");
    CHECK_FALSE(nlohmann::json::parse(off.output).contains("omitted"));
    check_refused("translate -m '" + model + "' -t 'a dog' --omission-gain -1",
                  "omission gain must be between 0 and 1000, got -1");
}

TEST_CASE("attend translate, export, eval: a low confidence is a warning on its line, not a failed line") {
    using namespace attend;
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string text = "A dog runs on the beach.";
    // --min-confidence 1 flags every translation: a warning on standard error, low_confidence in the JSON, and the
    // exit status of a run whose every line was translated.
    const Run all = run_attend("translate -m '" + model + "' -t '" + text + "' --json --min-confidence 1");
    CAPTURE(all.output);
    CHECK(all.status == 0);
    CHECK(all.output.find("attend: warning: line 1: low confidence (") != std::string::npos);
    CHECK(all.output.find("attend: 1 of 1 lines translated, 1 flagged low confidence (exit status 0)") != std::string::npos);
    const size_t brace = all.output.find('{');
    const nlohmann::json flagged = nlohmann::json::parse(all.output.substr(brace, all.output.find('\n', brace) - brace));
    CHECK(flagged["low_confidence"] == true);
    const float confidence = flagged["confidence"].get<float>();
    CHECK(confidence > 0.0f);
    CHECK(confidence < 1.0f);
    const Run none = run_attend("translate -m '" + model + "' -t '" + text + "' --json --min-confidence 0");
    CHECK(none.status == 0);
    const nlohmann::json plain = nlohmann::json::parse(none.output);
    CHECK_FALSE(plain.contains("low_confidence"));
    CHECK(plain["confidence"] == flagged["confidence"]);
    CHECK(plain["text"] == flagged["text"]);
    check_refused("translate -m '" + model + "' -t 'a dog' --min-confidence 1.5",
                  "min confidence must be between 0 and 1, got 1.5");

    // export writes the threshold into attend.decoding, and info shows it; eval prints what it is chosen from.
    const std::string out = kTmp + "confidence.safetensors";
    REQUIRE(run_attend("export '" + model + "' --dtype i8 --min-confidence 0.25 -o '" + out + "'").status == 0);
    const Run info = run_attend("info --json '" + out + "'");
    CHECK(nlohmann::json::parse(info.output)["min_confidence"].get<float>() == 0.25f);
    check_refused("export '" + model + "' --min-confidence 2 -o '" + out + "'", "--min-confidence");
    const Run eval = run_attend("eval -m '" + out + "' --split test_2016_flickr --limit 20 --threads 1 --data '" +
                                default_data_dir() + "'");
    CAPTURE(eval.output);
    CHECK(eval.status == 0);
    CHECK(eval.output.find("test_2016_flickr confidence: percentiles 1% ") != std::string::npos);
    CHECK(eval.output.find("below the threshold 0.25: ") != std::string::npos);

    // Name placeholders: the export option stores them, info shows them, a bad one is refused by name.
    REQUIRE(run_attend("export '" + out + "' --dtype i8 --name-placeholders Elmo,Europe -o '" + out + "'").status == 0);
    const nlohmann::json named = nlohmann::json::parse(run_attend("info --json '" + out + "'").output);
    CHECK(named["name_placeholders"] == nlohmann::json{"Elmo", "Europe"});
    CHECK(named["min_confidence"].get<float>() == 0.25f);  // kept from the input
    CHECK(run_attend("info '" + out + "'").output.find("names       Elmo, Europe stand for names") != std::string::npos);
    check_refused("export '" + out + "' --name-placeholders Elmo,elmo -o '" + out + "'",
                  "name placeholder 'elmo' is not a capitalized word of letters");
    check_refused("export '" + out + "' --name-placeholders Elmo,Elmo -o '" + out + "'",
                  "name placeholder 'Elmo' is named twice");

    // Alignment layers: likewise, checked against the model's 4 decoder layers.
    REQUIRE(run_attend("export '" + out + "' --dtype i8 --alignment-layers 1,2 -o '" + out + "'").status == 0);
    const nlohmann::json aligned = nlohmann::json::parse(run_attend("info --json '" + out + "'").output);
    CHECK(aligned["alignment_layers"] == nlohmann::json{1, 2});
    CHECK(aligned["name_placeholders"] == nlohmann::json{"Elmo", "Europe"});
    CHECK(run_attend("info '" + out + "'").output.find("alignment   cross attention layers 1 to 2 place markup") !=
          std::string::npos);
    check_refused("export '" + out + "' --alignment-layers 2,1 -o '" + out + "'",
                  "--alignment-layers 2,1: expected FIRST,LAST with 0 <= FIRST <= LAST < 4");
    check_refused("export '" + out + "' --alignment-layers 0,4 -o '" + out + "'", "LAST < 4");
    check_refused("export '" + out + "' --alignment-layers 2 -o '" + out + "'", "--alignment-layers");
    CHECK(nlohmann::json::parse(run_attend("info --json '" + out + "'").output)["alignment_layers"] ==
          nlohmann::json{1, 2});  // a refused export leaves the file as it was
    std::remove(out.c_str());
}

TEST_CASE("attend bench: sizes and probabilities are range-checked with readable messages") {
    check_refused("bench translate --batch 0", "--batch: must be at least 1, got 0");
    check_refused("bench translate --threads -1", "--threads: must be at least 1, got -1");
    check_refused("bench train --dropout 1.5", "--dropout: must be in [0, 1), got 1.5");
    check_refused("bench train --model-dim 0", "--model-dim: must be at least 1, got 0");
    check_refused("bench seq2seq --length 2", "--length: must be at least 3, got 2");
    check_refused("bench kernels --min-time 0", "--min-time: must be greater than 0, got 0");
    check_refused("bench kernels --min-time nan", "--min-time: must be a finite number, got nan");
}

TEST_CASE("attend bleu and translate: a truncated .gz input is an error naming the file, not a shorter text") {
    const std::string whole = kTmp + "cli_whole.gz", cut = kTmp + "cli_cut.gz";
    std::string text;
    for (int i = 0; i < 4000; i++) text += "a man rides a horse number " + std::to_string(i * 7919 % 4001) + " .\n";
    {
        std::FILE* f = popen(("gzip -c > '" + whole + "'").c_str(), "w");
        REQUIRE(f);
        std::fwrite(text.data(), 1, text.size(), f);
        REQUIRE(pclose(f) == 0);
    }
    std::string gz;
    {
        std::FILE* f = std::fopen(whole.c_str(), "rb");
        REQUIRE(f);
        char buffer[4096];
        for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) gz.append(buffer, n);
        std::fclose(f);
        f = std::fopen(cut.c_str(), "wb");
        REQUIRE(f);
        std::fwrite(gz.data(), 1, gz.size() / 2, f);
        std::fclose(f);
    }
    const Run whole_bleu = run_attend("bleu --ref '" + whole + "' --hyp '" + whole + "'");
    CAPTURE(whole_bleu.output);
    CHECK(whole_bleu.status == 0);
    check_refused("bleu --ref '" + whole + "' --hyp '" + cut + "'", cut + ": the gzip data ends early");
    check_refused("bleu --ref '" + cut + "' --hyp '" + whole + "'", "the file is truncated");
    std::remove(whole.c_str());
    std::remove(cut.c_str());
}

TEST_CASE("attend bleu --tokenize zh: Chinese scored a character a token; each score line followed by its signature") {
    using namespace attend;
    const std::string hyp = kTmp + "zh_hyp.txt", ref = kTmp + "zh_ref.txt";
    // The set of test_text_bleu.cpp's "corpus BLEU with the zh tokenizer on a Chinese set, counted by hand".
    write_lines(hyp, {"我喜欢猫。", "今天天气很好", "我有3只猫"});
    write_lines(ref, {"我喜欢狗。", "今天天气好。", "我有3只猫和1只狗"});
    const std::string version = std::string("version:attend-") + attend::kAttendVersion;
    const Run zh = run_attend("bleu --ref '" + ref + "' --hyp '" + hyp + "' --tokenize zh --metric all");
    CAPTURE(zh.output);
    CHECK(zh.status == 0);
    CHECK(zh.output ==
          "BLEU = 48.93 87.5/69.2/60.0/42.9 (BP = 0.779 ratio = 0.800 hyp_len = 16 ref_len = 20)\n"
          "BLEU|nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp|" + version + "\n"
          "chrF2 = 36.28\n"
          "chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|" + version + "\n");
    // 13a leaves each Chinese line one token: nothing matches.
    const Run v13a = run_attend("bleu --ref '" + ref + "' --hyp '" + hyp + "' --tokenize 13a");
    CHECK(v13a.output.find("BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 1.000 hyp_len = 3 ref_len = 3)\n"
                           "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|") == 0);
    // The default (tokenize none), lowercased, without smoothing: the signature says so.
    const Run lc = run_attend("bleu --ref '" + ref + "' --hyp '" + hyp + "' --lc --no-smoothing --metric all");
    CAPTURE(lc.output);
    CHECK(lc.output.find("\nBLEU|nrefs:1|case:lc|eff:no|tok:none|smooth:none|" + version + "\n") != std::string::npos);
    CHECK(lc.output.find("\nchrF2|nrefs:1|case:lc|eff:yes|nc:6|nw:0|space:no|" + version + "\n") != std::string::npos);
    check_refused("bleu --ref '" + ref + "' --hyp '" + hyp + "' --tokenize intl", "--tokenize: intl not in {none,13a,zh}");
    std::remove(hyp.c_str());
    std::remove(ref.c_str());
}

TEST_CASE("attend eval --src --ref: any test set, plain or .gz; line counts must match; cased BLEU and chrF2 signed") {
    using namespace attend;
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string src = kTmp + "eval_src.en.gz", ref = kTmp + "eval_ref.de", short_ref = kTmp + "eval_short.de";
    write_lines(src, {"A dog runs on the beach.", "Two men play football.", "A woman reads a book."});
    write_lines(ref, {"Ein Hund rennt am Strand.", "Zwei Männer spielen Fußball.", "Eine Frau liest ein Buch."});
    write_lines(short_ref, {"Ein Hund rennt am Strand.", "Zwei Männer spielen Fußball."});
    const std::string missing = kTmp + "eval_missing.de";

    check_refused("eval -m '" + model + "' --src '" + src + "' --ref '" + short_ref + "'",
                  "eval: the source " + src + " has 3 lines, the reference " + short_ref + " has 2");
    check_refused("eval -m '" + model + "' --src '" + src + "' --ref '" + missing + "'",
                  missing + ": cannot open (no such file)");
    check_refused("eval -m '" + model + "' --src '" + missing + "' --ref '" + ref + "'",
                  missing + ": cannot open (no such file)");
    check_refused("eval -m '" + model + "' --src '" + src + "'", "--src requires --ref");
    check_refused("eval -m '" + model + "' --ref '" + ref + "'", "--ref requires --src");
    check_refused("eval -m '" + model + "' --split val --src '" + src + "' --ref '" + ref + "'", "--split excludes --src");
    check_refused("eval -m '" + model + "' --tokenize zh", "--tokenize requires --src");
    check_refused("eval -m '" + model + "' --src '" + src + "' --ref '" + ref + "' --tokenize intl",
                  "--tokenize: intl not in {none,13a,zh}");

    const std::string version = std::string("version:attend-") + attend::kAttendVersion;
    const Run run = run_attend("eval -m '" + model + "' --src '" + src + "' --ref '" + ref + "' --threads 1");
    CAPTURE(run.output);
    CHECK(run.status == 0);
    CHECK(run.output.find(src + " en-de beam 5, length penalty ") != std::string::npos);
    CHECK(run.output.find(", 3 sentences, cased BLEU and chrF2 of the detokenized output (no Moses-tokenized "
                          "references to compare with):\nBLEU = ") != std::string::npos);
    // German gets 13a; no lowercased tokenized (Multi30K) score.
    CHECK(run.output.find("\nBLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|" + version + "\nchrF2 = ") !=
          std::string::npos);
    CHECK(run.output.find("\nchrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|" + version + "\n") !=
          std::string::npos);
    CHECK(run.output.find(" | cased 13a BLEU = ") == std::string::npos);
    CHECK(run.output.find(src + " confidence: percentiles") != std::string::npos);
    const Run zh = run_attend("eval -m '" + model + "' --src '" + src + "' --ref '" + ref +
                              "' --threads 1 --limit 2 --tokenize zh");
    CAPTURE(zh.output);
    CHECK(zh.status == 0);
    CHECK(zh.output.find(", 2 sentences, ") != std::string::npos);
    CHECK(zh.output.find("\nBLEU|nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp|" + version + "\n") != std::string::npos);

    // The same pairs as a TSV with the reference first (--test takes what `attend train --test` takes), and a line
    // that is no pair: skipped and said, the scores those of the three pairs.
    const std::vector<std::string> sources = read_lines(src), references = read_lines(ref);
    const std::string tsv = kTmp + "eval_test.tsv";
    {
        std::FILE* out = std::fopen(tsv.c_str(), "w");
        REQUIRE(out);
        for (size_t i = 0; i < sources.size(); i++)
            std::fprintf(out, "%s\t%s\n", references[i].c_str(), sources[i].c_str());
        std::fputs("only one column\n", out);
        std::fclose(out);
    }
    const Run from_tsv = run_attend("eval -m '" + model + "' --test '" + tsv + ":columns=2,1' --threads 1");
    CAPTURE(from_tsv.output);
    CHECK(from_tsv.status == 0);
    CHECK(from_tsv.output.find("3 pairs of 4 lines, 1 skipped: 1 without the named columns") != std::string::npos);
    const auto scores = [](const std::string& out) { return out.substr(out.find("\nBLEU = "), out.find(" confidence:") - out.find("\nBLEU = ")); };
    CHECK(scores(from_tsv.output).substr(0, 60) == scores(run.output).substr(0, 60));
    check_refused("eval -m '" + model + "' --test '" + tsv + "' --src '" + src + "' --ref '" + ref + "'",
                  "--src excludes --test");
    for (const std::string& f : {src, ref, short_ref, tsv}) std::remove(f.c_str());
}

TEST_CASE("attend translate --progress: the count, rate and time left on standard error; every line still out") {
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string input = kTmp + "progress.txt";
    {
        std::FILE* f = std::fopen(input.c_str(), "w");
        REQUIRE(f);
        std::fputs("A dog runs.\n\nTwo men play soccer.\nA woman reads a book.\n", f);
        std::fclose(f);
    }
    for (const char* beam : {"1", "3"}) {  // the batched greedy path and the one-at-a-time path
        CAPTURE(beam);
        const Run on = run_attend("translate -m '" + model + "' -i '" + input + "' -b " + beam + " --progress on");
        CAPTURE(on.output);
        CHECK(on.status == 0);
        CHECK(on.output.find("3/3 sentences, ") != std::string::npos);  // the empty line is not a sentence
        CHECK(on.output.find(" sentences/s, ETA 0m00s") != std::string::npos);
        const Run off = run_attend("translate -m '" + model + "' -i '" + input + "' -b " + beam + " --progress off");
        CHECK(off.status == 0);
        CHECK(off.output.find("sentences/s") == std::string::npos);
        CHECK(std::count(off.output.begin(), off.output.end(), '\n') == 4);  // one line out per line in
    }
    check_refused("translate -m model.safetensors -t 'a dog' --progress sometimes", "--progress");
    std::remove(input.c_str());
}

TEST_CASE("attend translate: a long sentence of a line is translated clause by clause and joined again") {
    using namespace attend;
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string line =
        "A man in an orange hat is staring at something, and a small dog is running on the green grass; a girl in a "
        "white uniform breaks a stick with a kick.";
    const std::string clauses = kTmp + "clauses.txt";
    {
        std::FILE* f = std::fopen(clauses.c_str(), "w");
        REQUIRE(f);
        std::fputs("A man in an orange hat is staring at something.\nA small dog is running on the green grass.\n"
                   "A girl in a white uniform breaks a stick with a kick.\n",
                   f);
        std::fclose(f);
    }
    const Translator translator(load_translator_model(SafeTensors::from_file(model)));
    const std::vector<Clause> segments = translator.segments(line, translator.default_options());
    REQUIRE(segments.size() == 3);
    for (const bool tokenized : {false, true}) {
        CAPTURE(tokenized);
        const std::string flag = tokenized ? " --tokenized" : "";
        const Run whole = run_attend("translate -m '" + model + "' -t '" + line + "' --progress off" + flag);
        const Run parts = run_attend("translate -m '" + model + "' -i '" + clauses + "' --progress off" + flag);
        CAPTURE(whole.output);
        CAPTURE(parts.output);
        REQUIRE(whole.status == 0);
        REQUIRE(parts.status == 0);
        // The line's translation is its clauses' translations, each alone, placed as translate/clause_join.h says.
        std::vector<std::string> translations;
        for (size_t at = 0, end; (end = parts.output.find('\n', at)) != std::string::npos; at = end + 1)
            translations.push_back(parts.output.substr(at, end - at));
        REQUIRE(translations.size() == 3);
        std::string joined;
        for (const PlacedTranslation& p : place_translations(line, segments, translations, Lang::de, tokenized))
            joined += p.joiner + p.text;
        CHECK(whole.output == joined + "\n");
        CHECK(whole.output.find(tokenized ? " , und " : ", und ") != std::string::npos);
        CHECK(whole.output.find(tokenized ? " ; " : "; ") != std::string::npos);
    }
    check_refused("translate -m '" + model + "' -t 'a dog' --clause-split-words -1",
                  "clause split words must be between 0 and 100000, got -1");
    std::remove(clauses.c_str());
}

TEST_CASE("attend translate --no-align-markup: marks go back at the same share of the words") {
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string marked = "A man is reading a *newspaper* on a bench.";
    const Run plain = run_attend("translate -m '" + model + "' -t 'A man is reading a newspaper on a bench.'");
    const Run share = run_attend("translate -m '" + model + "' -t '" + marked + "' --no-align-markup");
    const Run aligned = run_attend("translate -m '" + model + "' -t '" + marked + "'");
    REQUIRE(plain.status == 0);
    REQUIRE(share.status == 0);
    REQUIRE(aligned.status == 0);
    const attend::TakenOut t = attend::take_out_asides(attend::utf8_decode(marked));
    const std::string translation = plain.output.substr(0, plain.output.size() - 1);  // without its newline
    CHECK(share.output == attend::put_back_asides(translation, t.asides, t.words) + "\n");
    std::string without = aligned.output;
    for (int k = 0; k < 2; k++) without.erase(without.find('*'), 1);
    CHECK(without == plain.output);
}

TEST_CASE("attend translate --no-close-marks: the best hypothesis may leave a quotation mark open") {
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string source =
        "A little blond girl with a polka dot shirt is giving a stuffed animal a \"bath\" in a sink.";
    auto quotes = [](const std::string& text) {
        int n = 0;
        for (const char32_t c : attend::utf8_decode(text)) n += c == U'"' || c == U'„' || c == U'“';
        return n;
    };
    const Run closed = run_attend("translate -m '" + model + "' -t '" + source + "'");
    const Run open = run_attend("translate -m '" + model + "' -t '" + source + "' --no-close-marks");
    REQUIRE(closed.status == 0);
    REQUIRE(open.status == 0);
    CAPTURE(closed.output);
    CAPTURE(open.output);
    CHECK(quotes(closed.output) % 2 == 0);
    CHECK(quotes(open.output) % 2 == 1);
}

TEST_CASE("attend translate and eval: -m given twice is an ensemble; models that differ are refused") {
    const std::string de = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    const std::string fr = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-fr-cased.safetensors";
    const std::string text = " -t 'Two young men are playing soccer in a park.'";
    const Run one = run_attend("translate -m '" + de + "'" + text);
    const Run two = run_attend("translate -m '" + de + "' -m '" + de + "'" + text);
    REQUIRE(one.status == 0);
    CHECK(two.status == 0);
    CHECK(two.output == one.output);
    const Run eval = run_attend("eval -m '" + de + "' -m '" + de + "' --split val --limit 20 --threads 1");
    CAPTURE(eval.output);
    CHECK(eval.status == 0);
    CHECK(eval.output.find("val en-de beam 5 (ensemble of 2), length penalty") != std::string::npos);
    check_refused("translate -m '" + de + "' -m '" + fr + "'" + text,
                  "model 2 of the ensemble differs from model 1 in its source pipeline");
}

TEST_CASE("attend train --train-target, --with-references, --train-source: the run trains on those pairs and records them") {
    using namespace attend;
    const std::string out = attend_test::fresh_run_dir("train-target-cli");
    std::filesystem::create_directories(out);
    const std::string targets = out + "/teacher.de";
    write_lines(targets, load_multi30k(default_data_dir(), "train", Lang::en, Lang::de, TextForm::raw).target);
    write_lines(out + "/back.en", load_multi30k(default_data_dir(), "train", Lang::en, Lang::de, TextForm::raw).source);
    const std::string run = "train --preset transformer-tiny-cased --data '" + default_data_dir() + "' --out '" + out +
                            "/run' --max-steps 1 --max-sentences 64 --bpe 200 --layers 1 --dim 16 --heads 2 "
                            "--ffn 16 --threads 1 --train-target '";
    const Run r = run_attend(run + targets + "'");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("targets from " + targets) != std::string::npos);
    const TrainOptions o = train_options_from_json(load_newest_checkpoint(out + "/run").checkpoint.options);
    CHECK(o.corpus.train_target_files == std::vector<std::string>{targets});
    CHECK_FALSE(o.corpus.with_references);
    const Run both = run_attend("train --preset transformer-tiny-cased --data '" + default_data_dir() + "' --out '" +
                                out + "/both' --max-steps 1 --max-sentences 64 --bpe 200 --layers 1 --dim 16 "
                                "--heads 2 --ffn 16 --threads 1 --with-references --train-target '" + targets +
                                "' --train-source '" + out + "/back.en' --train-source '" + out + "/back.en'");
    CAPTURE(both.output);
    REQUIRE(both.status == 0);
    CHECK(both.output.find("256 training pairs (the references + targets from " + targets + " + sources from " + out +
                           "/back.en and " + out + "/back.en)") != std::string::npos);
    const CorpusOptions saved = train_options_from_json(load_newest_checkpoint(out + "/both").checkpoint.options).corpus;
    CHECK(saved.with_references);
    CHECK(saved.train_source_files == std::vector<std::string>{out + "/back.en", out + "/back.en"});
    check_refused("train --preset transformer-tiny-cased --data '" + default_data_dir() + "' --out '" + out +
                      "/none' --max-steps 1 --max-sentences 64 --bpe 200 --threads 1 --with-references",
                  "training on the references as well as a file's targets needs the file (--train-target)");
    write_lines(targets, {"Ein Hund."});
    std::string fresh = run;  // a new run's folder: out/run holds the first run
    fresh.replace(fresh.find("/run'"), 5, "/short'");
    check_refused(fresh + targets + "'", targets + " has 1 lines, expected one for each of the 29000 training pairs");
    std::filesystem::remove_all(out);
}

TEST_CASE("attend devices: the CPU's threads and the library the training products go through") {
    const Run r = run_attend("devices");
    CHECK(r.status == 0);
    CHECK(r.output.find("cpu: ") == 0);
    attend::use_native_gemm();  // what the CLI runs
    CHECK(r.output.find("training products through " + std::string(attend::gemm_backend())) != std::string::npos);
    CHECK(r.output.find("cuda: ") != std::string::npos);
}

TEST_CASE("attend devices: says when OpenBLAS runs kernels narrower than the CPU runs (held by OPENBLAS_CORETYPE, or "
          "its own fallback on a CPU model it does not know)") {
    attend::use_native_gemm();
    const bool openblas = std::string(attend::gemm_backend()).rfind("OpenBLAS", 0) == 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                        __builtin_cpu_supports("avx512vl");
#else
    const bool avx512 = false;
#endif
    const std::string note = "OPENBLAS_CORETYPE=Haswell holds OpenBLAS to its Haswell kernels";
    const Run forced = run_attend("devices", "OPENBLAS_CORETYPE=Haswell");  // devices runs no product: any CPU
    CAPTURE(forced.output);
    CHECK(forced.status == 0);
    CHECK((forced.output.find(note) != std::string::npos) == (openblas && avx512));
    if (openblas) CHECK(forced.output.find(" Haswell ") != std::string::npos);
    // OpenBLAS's own choice, which its configuration string names: a note only where that is not an AVX-512 core
    // on an AVX-512 CPU (a CPU model OpenBLAS does not know, as a virtual machine's may be).
    const std::string config = attend::gemm_backend();
    bool own_avx512 = false;
    for (const char* core : {" SkylakeX ", " Cooperlake ", " SapphireRapids "})
        own_avx512 |= config.find(core) != std::string::npos;
    const Run own = run_attend("devices", "-u OPENBLAS_CORETYPE");
    CAPTURE(own.output);
    CAPTURE(config);
    CHECK(own.status == 0);
    const char* test_env = std::getenv("OPENBLAS_CORETYPE");  // then this process's config is not OpenBLAS's own
    if (!test_env || !*test_env)
        CHECK((own.output.find("OpenBLAS did not recognise this CPU") != std::string::npos) ==
              (openblas && avx512 && !own_avx512));
    else
        MESSAGE("OPENBLAS_CORETYPE is set for the test itself: OpenBLAS's own choice is unknown here, not compared");
    CHECK(own.output.find("holds OpenBLAS") == std::string::npos);
}

TEST_CASE("attend translate, eval, bpe, tokenize, info: output that cannot be written is an error naming it") {
    const std::string model = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";
    // Standard output to `target`, standard error to the pipe read here.
    auto run_to = [](const std::string& args, const std::string& target) {
        const std::string command =
            "env OMP_WAIT_POLICY=passive '" + std::string(ATTEND_CLI_PATH) + "' " + args + " 2>&1 >" + target;
        Run r;
        std::FILE* pipe = popen(command.c_str(), "r");
        REQUIRE(pipe);
        char buffer[4096];
        for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.output.append(buffer, n);
        const int status = pclose(pipe);
        r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return r;
    };
    auto check_failed = [&](const std::string& args, const std::string& target, const std::string& message) {
        CAPTURE(args);
        const Run r = run_to(args, target);
        CAPTURE(r.output);
        CHECK(r.status == 1);
        CHECK(r.output.find("attend: error: " + message) != std::string::npos);
        CHECK(r.output.find("lines translated") == std::string::npos);
    };
    const std::string full = "cannot write standard output: " + std::string(std::strerror(ENOSPC));
    const std::string input = kTmp + "unwritable_in.txt";
    {
        std::FILE* f = std::fopen(input.c_str(), "w");
        REQUIRE(f);
        for (int i = 0; i < 200; i++) std::fprintf(f, "A dog runs on the beach number %d.\n", i);
        std::fclose(f);
    }
    // 200 lines (many stdio buffers) and one line (only the final flush fails), plain and JSON.
    check_failed("translate -m '" + model + "' -b 1 < '" + input + "'", "/dev/full", full);
    check_failed("translate -m '" + model + "' -b 1 --json < '" + input + "'", "/dev/full", full);
    check_failed("translate -m '" + model + "' -t 'A dog.'", "/dev/full", full);
    const Run ok = run_to("translate -m '" + model + "' -b 1 -i '" + input + "'", "/dev/null");
    CAPTURE(ok.output);
    CHECK((ok.status == 0 || ok.status == 3));

    const std::string no_space = "/dev/full: write failed (" + std::string(std::strerror(ENOSPC)) + ")";
    check_failed("translate -m '" + model + "' -t 'A dog.' --attention /dev/full", "/dev/null", no_space);
    const std::string missing = kTmp + "no_such_folder/out.txt";
    const std::string cannot_open = missing + ": cannot open for writing (" + std::strerror(ENOENT) + ")";
    check_failed("translate -m '" + model + "' -t 'A dog.' --attention '" + missing + "'", "/dev/null", cannot_open);
    check_failed("eval -m '" + model + "' --split val --limit 2 -b 1 --output /dev/full", "/dev/null", no_space);
    check_failed("eval -m '" + model + "' --split val --limit 2 -b 1 --output-text '" + missing + "'", "/dev/null",
                 cannot_open);
    check_failed("eval -m '" + model + "' --split val --limit 2 -b 1", "/dev/full", full);

    const std::string codes = kTmp + "unwritable_codes.txt";
    const Run learned = run_to("bpe learn -i '" + input + "' -o '" + codes + "' -s 20", "/dev/null");
    CAPTURE(learned.output);
    REQUIRE(learned.status == 0);
    check_failed("bpe learn -i '" + input + "' -o /dev/full -s 20", "/dev/null", no_space);
    check_failed("bpe apply -c '" + codes + "' -i '" + input + "' -o /dev/full", "/dev/null", no_space);
    check_failed("bpe apply -c '" + codes + "' -i '" + input + "'", "/dev/full", full);
    check_failed("bpe undo -i '" + input + "'", "/dev/full", full);
    check_failed("tokenize -i '" + input + "'", "/dev/full", full);
    check_failed("tokenize -i '" + input + "' -o /dev/full", "/dev/null", no_space);
    check_failed("info '" + model + "'", "/dev/full", full);
    std::remove(input.c_str());
    std::remove(codes.c_str());
}
