// Training data from any corpus in any language (train/file_corpus.h): a held-out validation split by source
// sentence that no training pair touches, fixed by its seed; test sentences never trained on; weights; one
// SentencePiece model over both sides that reads every pair back exactly; the record a run keeps; and the whole
// path from a TSV to a model file through `attend train`.
#include <doctest/doctest.h>

#include "data/data_dir.h"
#include "data/text_file.h"
#include "error.h"
#include "train/file_corpus.h"
#include "train/presets.h"
#include "train/trainer.h"
#include "trainer_test_util.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace attend;
using attend_test::error_of;

namespace {

// The first n pairs of Tatoeba eng-cmn (English, Chinese, attribution), as a TSV in a test folder.
std::string eng_cmn_tsv(const std::string& dir, int n) {
    std::filesystem::create_directories(dir);
    std::vector<std::string> lines = read_lines(default_data_dir() + "/tatoeba/eng-cmn.tsv.gz");
    REQUIRE(static_cast<int>(lines.size()) > n);
    lines.resize(n);
    const std::string path = dir + "/eng-cmn.tsv";
    write_lines(path, lines);
    return path;
}

CorpusOptions zh_en(const std::string& tsv) {
    CorpusOptions o;
    o.dataset = "files";
    o.source_lang = "zh";
    o.target_lang = "en";
    o.train_sets = {tsv + ":columns=2,1"};
    o.valid_size = 100;
    o.vocab_size = 1500;
    o.character_coverage = 0.99;  // a small corpus: rare characters spelt in bytes
    return o;
}

std::string text_of(const TranslationCorpus& c, const std::vector<int>& ids) {
    return c.source_pipeline.sentencepiece->decode(ids);
}

}  // namespace

TEST_CASE("a held-out split by source sentence: no validation sentence on either side of a training pair") {
    const std::string dir = attend_test::fresh_run_dir("file-corpus-split");
    const std::string tsv = eng_cmn_tsv(dir, 3000);
    const TranslationCorpus c = prepare_file_corpus(zh_en(tsv), nullptr);

    std::set<std::string> valid_sources(c.val_source_text.begin(), c.val_source_text.end());
    CHECK(valid_sources.size() == 100);             // distinct source sentences held out
    CHECK(c.val_source.size() >= 100);              // with every pair that has one
    std::set<std::string> valid_text(valid_sources);
    valid_text.insert(c.val_target_text.begin(), c.val_target_text.end());
    int touching = 0;
    for (size_t i = 0; i < c.train_source.size(); i++)
        touching += valid_text.count(text_of(c, c.train_source[i])) + valid_text.count(text_of(c, c.train_target[i]));
    CHECK(touching == 0);

    // Every pair is somewhere: held out, trained on, or dropped for sharing a sentence with validation.
    const nlohmann::json& d = c.record["dropped"];
    CHECK(d["held_out_for_validation"].get<size_t>() == c.val_source.size());
    CHECK(c.train_source.size() + c.val_source.size() + d["shares_a_sentence_with_validation"].get<size_t>() +
              d["too_many_pieces"].get<size_t>() ==
          3000);
    CHECK(c.record["train"][0]["lines"] == 3000);
    CHECK(c.record["train"][0]["files"][0]["crc32"].get<std::string>().size() == 8);
    CHECK(c.record["valid"]["split_seed"] == 1);

    // The same options give the same split and the same ids; another seed another split.
    const TranslationCorpus again = prepare_file_corpus(zh_en(tsv), nullptr);
    CHECK(again.val_source_text == c.val_source_text);
    CHECK(again.train_source == c.train_source);
    CHECK(again.train_target == c.train_target);
    CorpusOptions other = zh_en(tsv);
    other.split_seed = 2;
    CHECK(prepare_file_corpus(other, nullptr).val_source_text != c.val_source_text);

    // A resumed run brings its own subword model and vocabulary: nothing is learned, the ids are the same.
    const TranslationCorpus resumed = prepare_file_corpus(zh_en(tsv), &c);
    CHECK(resumed.train_source == c.train_source);
    CHECK(resumed.val_target == c.val_target);
    std::filesystem::remove_all(dir);
}

TEST_CASE("one subword model for both sides reads every training sentence back exactly; validation BLEU sees tokens") {
    const std::string dir = attend_test::fresh_run_dir("file-corpus-subwords");
    const std::string tsv = eng_cmn_tsv(dir, 2000);
    const TranslationCorpus c = prepare_file_corpus(zh_en(tsv), nullptr);
    CHECK(c.source_pipeline.type == TextPipelineType::sentencepiece);
    CHECK(language_code(c.source_pipeline) == "zh");
    CHECK(language_code(c.target_pipeline) == "en");
    CHECK(c.source_vocab.id_to_token() == c.target_vocab.id_to_token());  // joint: embeddings may be tied
    CHECK(c.source_vocab.size() == 1500);
    CHECK(c.source_vocab.token(0) == "<unk>");
    CHECK(c.source_vocab["<pad>"] == 1);
    CHECK(c.source_vocab["<bos>"] == 2);
    CHECK(c.source_vocab["<eos>"] == 3);
    int unknown = 0;
    for (const auto& ids : c.train_source)
        for (int id : ids) unknown += id == 0;
    CHECK(unknown == 0);  // byte fallback: no input is unknown

    // The validation pairs as the trainer scores them: the English references tokenized as sacreBLEU's 13a does.
    REQUIRE(!c.val_target_text.empty());
    for (size_t i = 0; i < c.val_target_text.size(); i++) {
        CHECK(text_of(c, c.val_target[i]) == c.val_target_text[i]);
        CHECK(text_of(c, c.val_source[i]) == c.val_source_text[i]);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("a test set's sentences never train; weights repeat or thin a set's pairs") {
    const std::string dir = attend_test::fresh_run_dir("file-corpus-test-weights");
    const std::string tsv = eng_cmn_tsv(dir, 2000);
    // A test set that holds 50 of the training pairs (lines 1001-1050).
    std::vector<std::string> lines = read_lines(tsv);
    write_lines(dir + "/test.tsv", std::vector<std::string>(lines.begin() + 1000, lines.begin() + 1050));
    CorpusOptions o = zh_en(tsv);
    const TranslationCorpus plain = prepare_file_corpus(o, nullptr);
    o.test_sets = {dir + "/test.tsv:columns=2,1"};
    const TranslationCorpus guarded = prepare_file_corpus(o, nullptr);
    const std::int64_t dropped = guarded.record["dropped"]["shares_a_sentence_with_a_test_set"].get<std::int64_t>();
    CHECK(dropped >= 40);  // the 50 pairs, less those held out for validation, plus pairs sharing a sentence with them
    CHECK(guarded.train_source.size() + dropped <= plain.train_source.size() + 10);
    std::set<std::string> test_text;
    for (size_t i = 1000; i < 1050; i++) {
        const std::string& line = lines[i];
        const size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
        test_text.insert(line.substr(0, t1));
        test_text.insert(line.substr(t1 + 1, t2 - t1 - 1));
    }
    int trained_test = 0;
    for (size_t i = 0; i < guarded.train_source.size(); i++)
        trained_test += test_text.count(text_of(guarded, guarded.train_source[i])) +
                        test_text.count(text_of(guarded, guarded.train_target[i]));
    CHECK(trained_test == 0);

    // weight=2 sees each pair twice; 0.5 about half of them, the same half every time.
    o.test_sets.clear();
    o.valid_sets = {dir + "/test.tsv:columns=2,1"};  // given validation: nothing held out of the training set
    o.train_sets = {tsv + ":columns=2,1"};
    const size_t once = prepare_file_corpus(o, nullptr).train_source.size();
    o.train_sets = {tsv + ":columns=2,1:weight=2"};
    CHECK(prepare_file_corpus(o, nullptr).train_source.size() == 2 * once);
    o.train_sets = {tsv + ":columns=2,1:weight=0.5"};
    const size_t half = prepare_file_corpus(o, nullptr).train_source.size();
    CHECK(half > once * 4 / 10);
    CHECK(half < once * 6 / 10);
    CHECK(prepare_file_corpus(o, nullptr).train_source.size() == half);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a corpus of files refuses what cannot be right, naming it") {
    const std::string dir = attend_test::fresh_run_dir("file-corpus-errors");
    const std::string tsv = eng_cmn_tsv(dir, 300);
    CorpusOptions o = zh_en(tsv);
    o.source_lang = "Chinese";
    CHECK(error_of([&] { prepare_file_corpus(o, nullptr); }).find("language code 'Chinese'") != std::string::npos);
    o = zh_en(tsv);
    o.target_lang = "zh";
    CHECK(error_of([&] { prepare_file_corpus(o, nullptr); }).find("both 'zh'") != std::string::npos);
    o = zh_en(tsv);
    o.train_sets.clear();
    CHECK(error_of([&] { prepare_file_corpus(o, nullptr); }).find("--train") != std::string::npos);
    o = zh_en(tsv);
    o.valid_size = 200;  // of 300 pairs: no room left to train
    CHECK(error_of([&] { prepare_file_corpus(o, nullptr); }).find("too few to hold out") != std::string::npos);
    o = zh_en(tsv);
    o.subwords = "wordpiece";
    CHECK(error_of([&] { prepare_file_corpus(o, nullptr); }).find("unigram or bpe") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("attend train --train: from a TSV to a model that translates Chinese, the run keeps its data record") {
    const std::string dir = attend_test::fresh_run_dir("file-corpus-cli");
    const std::string tsv = eng_cmn_tsv(dir, 2000);
    const std::string run = dir + "/run", model = dir + "/model.safetensors";
    auto sh = [](const std::string& command) {
        const int status = std::system(command.c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    const std::string attend = ATTEND_CLI_PATH;
    REQUIRE(sh(attend + " train --source zh --target en --train " + tsv +
               ":columns=2,1 --valid-size 100 --vocab-size 1000 --character-coverage 0.99 --max-steps 6 --dim 32 --layers 1 --heads 2 --ffn 32 "
               "--max-tokens 800 --threads 1 --out " + run + " > " + dir + "/train.log 2>&1") == 0);
    CHECK(std::filesystem::exists(run + "/data.json"));
    CHECK(read_lines(run + "/valid.tsv").size() >= 100);
    const std::string log = read_file_bytes(dir + "/train.log");
    CHECK(log.find("2000 lines, 2000 pairs") != std::string::npos);
    REQUIRE(sh(attend + " export " + run + " -o " + model + " --dtype I8 > /dev/null") == 0);
    // A model of 6 steps: its translation may be cut at the length limit, which is a warning (exit status 3).
    const int translated = sh("echo 我喜欢吃鱼 | " + attend + " translate -m " + model + " > " + dir + "/out.txt 2>/dev/null");
    CHECK((translated == 0 || translated == 3));
    CHECK(read_lines(dir + "/out.txt").size() == 1);
    REQUIRE(sh(attend + " info " + model + " > " + dir + "/info.txt") == 0);
    const std::string info = read_file_bytes(dir + "/info.txt");
    CHECK(info.find("languages   zh -> en") != std::string::npos);
    CHECK(info.find("SentencePiece unigram") != std::string::npos);
    CHECK(info.find("eng-cmn.tsv:columns=2,1: ") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("{data} in a corpus file name is the data folder: the same run reads the same pairs wherever it lies") {
    const std::string dir = attend_test::fresh_run_dir("file-corpus-data-dir");
    eng_cmn_tsv(dir + "/tatoeba", 600);
    CorpusOptions by_path = zh_en(dir + "/tatoeba/eng-cmn.tsv");
    by_path.valid_size = 50;
    by_path.vocab_size = 800;
    CorpusOptions by_data = by_path;
    by_data.data_dir = dir;
    by_data.train_sets = {"{data}/tatoeba/eng-cmn.tsv:columns=2,1"};
    const TranslationCorpus a = prepare_file_corpus(by_path, nullptr), b = prepare_file_corpus(by_data, nullptr);
    CHECK(a.train_source == b.train_source);
    CHECK(a.train_target == b.train_target);
    by_data.data_dir = dir + "/nowhere";
    CHECK(error_of([&] { prepare_file_corpus(by_data, nullptr); }).find(dir + "/nowhere/tatoeba/eng-cmn.tsv") !=
          std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("the everyday presets name the shared data sets, each direction's columns, and every public test set") {
    const std::string data = default_data_dir();
    for (const char* name : {"everyday-en-de", "everyday-de-en", "everyday-en-fr", "everyday-fr-en"}) {
        CAPTURE(name);
        const TrainOptions o = train_preset(name);
        const CorpusOptions& c = o.corpus;
        CHECK(name == "everyday-" + c.source_lang + "-" + c.target_lang);
        REQUIRE(c.train_sets.size() == 2);
        REQUIRE(c.test_sets.size() == 4);
        // Multi30K twice an epoch, source file first; Tatoeba's English column read as the English side.
        CHECK(c.train_sets[0] == "{data}/multi30k/train." + c.source_lang + ".gz,{data}/multi30k/train." +
                                     c.target_lang + ".gz:weight=2");
        const bool from_english = c.source_lang == "en";
        CHECK((c.train_sets[1].find(":columns=2,1") != std::string::npos) == !from_english);
        CHECK((c.test_sets[0].find(":columns=2,1") != std::string::npos) == !from_english);
        CHECK(c.test_sets[0].find("tatoeba-test") != std::string::npos);
        std::vector<std::string> specs = c.train_sets;
        specs.insert(specs.end(), c.test_sets.begin(), c.test_sets.end());
        for (const std::string& spec : specs) {
            CAPTURE(spec);
            std::string files = spec.substr(0, spec.find(':'));
            for (size_t at; (at = files.find("{data}")) != std::string::npos;) files.replace(at, 6, data);
            for (size_t from = 0, comma; from <= files.size(); from = comma + 1) {
                comma = files.find(',', from);
                if (comma == std::string::npos) comma = files.size();
                CHECK(std::filesystem::exists(files.substr(from, comma - from)));
            }
        }
        CHECK(o.model.encoder_layers == 6);
        CHECK(o.model.decoder_layers == 2);
        CHECK(o.model.model_dim == 256);
    }
}
