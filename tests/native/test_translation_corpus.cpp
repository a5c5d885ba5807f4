// Training pairs from files (`attend train --train-target`, `--with-references`, `--train-source`): a teacher's
// translations replace the data set's targets line for line, tokenized as the data set's are, while the BPE and the
// vocabularies stay those of the data set itself; with_references keeps the data set's pairs before the file's; a
// source file (back-translations) adds its lines paired with the references; several files of a side add their
// pairs in the order given.
#include <doctest/doctest.h>

#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/text_file.h"
#include "error.h"
#include "train/translation_corpus.h"
#include "trainer_test_util.h"

#include <filesystem>
#include <string>
#include <vector>

using namespace attend;

namespace {

// Multi30K en-de's first 50 training pairs, cased, with a small BPE: quick to prepare.
CorpusOptions first_50_cased() {
    CorpusOptions o;
    o.cased = o.split_digits = true;
    o.bpe_merges = 300;
    o.max_train_sentences = 50;
    return o;
}

}  // namespace

TEST_CASE("training targets from a file replace the data set's line for line; BPE and vocabularies stay the data set's") {
    CorpusOptions o = first_50_cased();
    const TranslationCorpus own = prepare_corpus(o);

    const std::string dir = attend_test::fresh_run_dir("train-target");
    std::filesystem::create_directories(dir);
    std::vector<std::string> targets =
        load_multi30k(default_data_dir(), "train", Lang::en, Lang::de, TextForm::raw).target;
    // the data set's own targets: the same corpus
    o.train_target_files = {dir + "/same.de"};
    write_lines(o.train_target_files[0], targets);
    const TranslationCorpus same = prepare_corpus(o);
    CHECK(same.train_target == own.train_target);
    CHECK(same.train_source == own.train_source);

    // each pair given the next pair's target: the targets move, nothing else does
    std::rotate(targets.begin(), targets.begin() + 1, targets.end());
    o.train_target_files = {dir + "/shifted.de"};
    write_lines(o.train_target_files[0], targets);
    const TranslationCorpus shifted = prepare_corpus(o);
    CHECK(nlohmann::json(shifted.target_pipeline) == nlohmann::json(own.target_pipeline));
    CHECK(shifted.target_vocab.id_to_token() == own.target_vocab.id_to_token());
    CHECK(shifted.train_source == own.train_source);
    REQUIRE(shifted.train_target.size() == own.train_target.size());
    for (size_t i = 0; i + 1 < own.train_target.size(); i++) CHECK(shifted.train_target[i] == own.train_target[i + 1]);
    CHECK(shifted.val_target == own.val_target);  // validation keeps the real references

    // with the references: the data set's pairs, then each source again with the file's target
    o.with_references = true;
    const TranslationCorpus both = prepare_corpus(o);
    CHECK(nlohmann::json(both.target_pipeline) == nlohmann::json(own.target_pipeline));
    CHECK(both.target_vocab.id_to_token() == own.target_vocab.id_to_token());
    const size_t n = own.train_source.size();
    REQUIRE(both.train_source.size() == 2 * n);
    REQUIRE(both.train_target.size() == 2 * n);
    for (size_t i = 0; i < n; i++) {
        CHECK(both.train_source[i] == own.train_source[i]);
        CHECK(both.train_target[i] == own.train_target[i]);
        CHECK(both.train_source[n + i] == own.train_source[i]);
        CHECK(both.train_target[n + i] == shifted.train_target[i]);
    }
    CHECK(both.val_target == own.val_target);
    CHECK(describe_training_pairs(o) == "the references + targets from " + o.train_target_files[0]);

    // sources from a file: added after the others, each with its reference
    std::vector<std::string> sources =
        load_multi30k(default_data_dir(), "train", Lang::en, Lang::de, TextForm::raw).source;
    std::rotate(sources.begin(), sources.begin() + 2, sources.end());
    o.train_source_files = {dir + "/shifted.en"};
    write_lines(o.train_source_files[0], sources);
    const TranslationCorpus three = prepare_corpus(o);
    CHECK(three.source_vocab.id_to_token() == own.source_vocab.id_to_token());
    REQUIRE(three.train_source.size() == 3 * n);
    REQUIRE(three.train_target.size() == 3 * n);
    for (size_t i = 0; i < 2 * n; i++) {
        CHECK(three.train_source[i] == both.train_source[i]);
        CHECK(three.train_target[i] == both.train_target[i]);
    }
    for (size_t i = 0; i + 2 < n; i++) {
        CHECK(three.train_source[2 * n + i] == own.train_source[i + 2]);
        CHECK(three.train_target[2 * n + i] == own.train_target[i]);
    }
    CHECK(describe_training_pairs(o) ==
          "the references + targets from " + o.train_target_files[0] + " + sources from " + o.train_source_files[0]);
    o.with_references = false;  // the file's targets and the back-translations
    const TranslationCorpus two = prepare_corpus(o);
    REQUIRE(two.train_source.size() == 2 * n);
    for (size_t i = 0; i < n; i++) {
        CHECK(two.train_target[i] == shifted.train_target[i]);
        CHECK(two.train_source[n + i] == three.train_source[2 * n + i]);
    }
    CHECK(describe_training_pairs(o) ==
          "targets from " + o.train_target_files[0] + " + sources from " + o.train_source_files[0]);
    const std::string target_file = o.train_target_files[0];
    o.train_target_files.clear();  // the references and the back-translations
    const TranslationCorpus back = prepare_corpus(o);
    REQUIRE(back.train_source.size() == 2 * n);
    for (size_t i = 0; i < n; i++) {
        CHECK(back.train_source[i] == own.train_source[i]);
        CHECK(back.train_target[i] == own.train_target[i]);
        CHECK(back.train_source[n + i] == three.train_source[2 * n + i]);
        CHECK(back.train_target[n + i] == own.train_target[i]);
    }
    CHECK(describe_training_pairs(o) == "the references + sources from " + o.train_source_files[0]);
    sources.resize(7);
    write_lines(o.train_source_files[0], sources);
    CHECK_THROWS_WITH_AS(prepare_corpus(o),
                         (o.train_source_files[0] + " has 7 lines, expected one for each of the 29000 training "
                                                    "pairs").c_str(),
                         Error);
    o.train_source_files.clear();
    o.train_target_files = {target_file};
    o.with_references = true;
    CHECK(describe_training_pairs(CorpusOptions{}).empty());
    o.train_target_files.clear();
    CHECK_THROWS_WITH_AS(prepare_corpus(o),
                         "training on the references as well as a file's targets needs the file (--train-target)", Error);
    o.with_references = false;

    targets.resize(10);
    o.train_target_files = {dir + "/short.de"};
    write_lines(o.train_target_files[0], targets);
    CHECK_THROWS_WITH_AS(prepare_corpus(o),
                         (o.train_target_files[0] + " has 10 lines, expected one for each of the 29000 training "
                                                    "pairs").c_str(),
                         Error);
    o.train_target_files = {dir + "/missing.de"};
    CHECK_THROWS_AS(prepare_corpus(o), Error);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a pair with an empty side is dropped and counted apart from the pairs that are too long") {
    CorpusOptions o = first_50_cased();
    const TranslationCorpus own = prepare_corpus(o);
    CHECK(own.dropped_empty == 0);

    const std::string dir = attend_test::fresh_run_dir("empty-side");
    std::filesystem::create_directories(dir);
    std::vector<std::string> targets =
        load_multi30k(default_data_dir(), "train", Lang::en, Lang::de, TextForm::raw).target;
    targets[3] = "";
    targets[7] = "   ";
    o.train_target_files = {dir + "/gaps.de"};
    write_lines(o.train_target_files[0], targets);
    const TranslationCorpus gaps = prepare_corpus(o);
    CHECK(gaps.dropped_empty == 2);
    CHECK(gaps.dropped_long == own.dropped_long);
    REQUIRE(gaps.train_target.size() + 2 == own.train_target.size());
    CHECK(gaps.train_source[3] == own.train_source[4]);  // the good pairs around the gaps are kept, in order

    // a limit that the longest pairs exceed: those count as too long, the empty ones still as empty
    size_t longest = 0;
    for (const auto& t : gaps.train_target) longest = std::max(longest, t.size());
    o.max_tokens_per_sentence = static_cast<int>(longest) - 1;
    const TranslationCorpus both = prepare_corpus(o);
    CHECK(both.dropped_empty == 2);
    CHECK(both.dropped_long >= 1);
    CHECK(both.train_target.size() + 2 + both.dropped_long == own.train_target.size() + own.dropped_long);
    std::filesystem::remove_all(dir);
}

TEST_CASE("several target and source files: each file's pairs in the order given, after the references") {
    CorpusOptions o = first_50_cased();
    const TranslationCorpus own = prepare_corpus(o);
    const size_t n = own.train_source.size();

    const std::string dir = attend_test::fresh_run_dir("train-files");
    std::filesystem::create_directories(dir);
    const ParallelText raw = load_multi30k(default_data_dir(), "train", Lang::en, Lang::de, TextForm::raw);
    // Each file's lines shifted by its own amount, so every pair tells which file it came from.
    auto shifted = [&](std::vector<std::string> lines, int by, const std::string& name) {
        std::rotate(lines.begin(), lines.begin() + by, lines.end());
        write_lines(dir + "/" + name, lines);
        return dir + "/" + name;
    };
    o.with_references = true;
    o.train_target_files = {shifted(raw.target, 1, "t1.de"), shifted(raw.target, 2, "t2.de")};
    o.train_source_files = {shifted(raw.source, 3, "s1.en"), shifted(raw.source, 4, "s2.en")};
    const TranslationCorpus five = prepare_corpus(o);
    CHECK(five.source_vocab.id_to_token() == own.source_vocab.id_to_token());
    REQUIRE(five.train_source.size() == 5 * n);
    REQUIRE(five.train_target.size() == 5 * n);
    for (size_t i = 0; i + 4 < n; i++) {
        CHECK(five.train_source[i] == own.train_source[i]);
        CHECK(five.train_target[i] == own.train_target[i]);
        CHECK(five.train_source[n + i] == own.train_source[i]);
        CHECK(five.train_target[n + i] == own.train_target[i + 1]);
        CHECK(five.train_source[2 * n + i] == own.train_source[i]);
        CHECK(five.train_target[2 * n + i] == own.train_target[i + 2]);
        CHECK(five.train_source[3 * n + i] == own.train_source[i + 3]);
        CHECK(five.train_target[3 * n + i] == own.train_target[i]);
        CHECK(five.train_source[4 * n + i] == own.train_source[i + 4]);
        CHECK(five.train_target[4 * n + i] == own.train_target[i]);
    }
    CHECK(describe_training_pairs(o) == "the references + targets from " + dir + "/t1.de and " + dir +
                                            "/t2.de + sources from " + dir + "/s1.en and " + dir + "/s2.en");

    // A bad file among good ones is named.
    write_lines(dir + "/t2.de", {"Ein Hund."});
    CHECK_THROWS_WITH_AS(prepare_corpus(o),
                         (dir + "/t2.de has 1 lines, expected one for each of the 29000 training pairs").c_str(),
                         Error);
    std::filesystem::remove_all(dir);
}

TEST_CASE("corpus options round-trip through JSON; a run saved with one file a side reads as a list of one") {
    CorpusOptions o = first_50_cased();
    o.with_references = true;
    o.train_target_files = {"a.de", "b.de"};
    o.train_source_files = {"c.en"};
    const CorpusOptions back = nlohmann::json(o).get<CorpusOptions>();
    CHECK(nlohmann::json(back) == nlohmann::json(o));
    CHECK(back.train_target_files == std::vector<std::string>{"a.de", "b.de"});
    CHECK(back.train_source_files == std::vector<std::string>{"c.en"});

    nlohmann::json saved = nlohmann::json(first_50_cased());
    saved.erase("train_target_files");
    saved.erase("train_source_files");
    saved["train_target_file"] = "fwd.de";
    saved["train_source_file"] = "";
    saved["with_references"] = true;
    const CorpusOptions old = saved.get<CorpusOptions>();
    CHECK(old.train_target_files == std::vector<std::string>{"fwd.de"});
    CHECK(old.train_source_files.empty());
    CHECK(old.with_references);
    CHECK(old.bpe_merges == 300);
    CHECK(nlohmann::json::object().get<CorpusOptions>().bpe_merges == CorpusOptions{}.bpe_merges);  // no keys
}
