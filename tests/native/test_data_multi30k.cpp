// Tests on the real data in ../shared/data (or $ATTEND_DATA): the loaders, the tokenizer's match rate on the
// official tok/ files, and BPE learned on the training set. Each reads a few MB at most.
#include <doctest/doctest.h>

#include <string>

#include "core/test_text_bpe_reference.h"
#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/tatoeba.h"
#include "data/text_file.h"
#include "data/tokenizer_check.h"
#include "text/bpe.h"
#include "text/vocab.h"

using namespace attend;

namespace {

std::string data_dir() {
    std::string dir = default_data_dir();
    INFO("data directory " << dir << " (set ATTEND_DATA to point elsewhere)");
    REQUIRE(file_exists(dir + "/multi30k/val.en.gz"));
    return dir;
}

}  // namespace

TEST_CASE("Multi30K loader: every pair and form of the validation split") {
    const std::string data = data_dir();
    ParallelText raw = load_multi30k(data, "val", Lang::en, Lang::de, TextForm::raw);
    CHECK(raw.source.size() == 1014);
    CHECK(raw.target.size() == 1014);
    ParallelText tok = load_multi30k(data, "val", Lang::fr, Lang::en, TextForm::tok);
    CHECK(tok.source.size() == 1014);
    CHECK(tok.source_path.find("tok/val.lc.norm.tok.fr.gz") != std::string::npos);
    ParallelText mscoco = load_multi30k(data, "test_2017_mscoco", Lang::de, Lang::fr, TextForm::raw);
    CHECK(mscoco.source.size() == 461);
}

TEST_CASE("tokenizer matches the official Multi30K tok files on >= 99.5% of validation lines") {
    const std::string data = data_dir();
    for (Lang lang : {Lang::en, Lang::de, Lang::fr}) {
        TokenizerCheck check = check_multi30k_tokenizer(data, "val", lang, 3);
        INFO("val." << lang_code(lang) << ": " << check.matching << " of " << check.lines << " lines match");
        for (const auto& m : check.mismatches) INFO("line " << m.line << ": expected '" << m.expected << "', got '" << m.produced << "'");
        CHECK(check.lines == 1014);
        CHECK(check.rate() >= 0.995);
    }
}

TEST_CASE("joint BPE on Multi30K train en+de: 10,000 merges, apply and undo round-trip") {
    const std::string data = data_dir();
    std::vector<std::string> en = read_lines(multi30k_path(data, "train", Lang::en, TextForm::tok));
    std::vector<std::string> de = read_lines(multi30k_path(data, "train", Lang::de, TextForm::tok));
    WordCounts counts = count_words(en);
    add_word_counts(counts, de);
    Bpe bpe = Bpe::learn(counts, 10000);
    CHECK(bpe.size() == 10000);

    std::vector<std::string> val = read_lines(multi30k_path(data, "val", Lang::de, TextForm::tok));
    std::vector<std::string> pieces = bpe.apply_lines(val);
    std::size_t marked = 0;
    for (std::size_t i = 0; i < val.size(); ++i) {
        CHECK(undo_bpe(pieces[i]) == val[i]);
        marked += pieces[i].find("@@ ") != std::string::npos;
    }
    CHECK(marked > 0);  // some validation words are split into pieces
    // every piece of the training data comes from the learned symbols: one JSON round-trip changes nothing
    Bpe back = nlohmann::json(bpe).get<Bpe>();
    CHECK(back.apply_lines(val) == pieces);
}

TEST_CASE("BPE learner agrees with a full recount on real text (Multi30K val en)") {
    const std::string data = data_dir();
    WordCounts counts = count_words(read_lines(multi30k_path(data, "val", Lang::en, TextForm::tok)));
    std::vector<BpeMerge> expected = test::reference_learn_bpe(counts, 300);
    Bpe bpe = Bpe::learn(counts, 300);
    REQUIRE(bpe.size() == expected.size());
    CHECK(bpe.merges() == expected);
}

TEST_CASE("Tatoeba: d2l load_data_nmt on the first 600 pairs") {
    const std::string data = data_dir();
    TatoebaPairs pairs = read_tatoeba(tatoeba_path(data), 600);
    REQUIRE(pairs.english.size() == 600);
    CHECK(pairs.english[0] == "Go.");
    CHECK(pairs.french[0] == "Va !");

    NmtData nmt = load_data_nmt(tatoeba_path(data), 8, 600);
    REQUIRE(nmt.source.size() == 600);
    CHECK(nmt.source[0] == std::vector<std::string>{"go", "."});
    CHECK(nmt.target[0] == std::vector<std::string>{"va", "!"});
    for (const Vocab* vocab : {&nmt.src_vocab, &nmt.tgt_vocab}) {
        CHECK(vocab->token(0) == "<unk>");
        CHECK(vocab->token(1) == "<pad>");
        CHECK(vocab->token(2) == "<bos>");
        CHECK(vocab->token(3) == "<eos>");
        for (const auto& [token, freq] : vocab->token_freqs()) CHECK((freq >= 2) == vocab->contains(token));
    }
    CHECK(nmt.src_array.rows == 600);
    CHECK(nmt.src_array.ids.size() == 600u * 8u);
    // "go ." -> go . <eos> <pad> x5, valid length 3
    CHECK(nmt.src_array.valid_lens[0] == 3);
    CHECK(nmt.src_array.ids[0] == nmt.src_vocab["go"]);
    CHECK(nmt.src_array.ids[2] == nmt.src_vocab["<eos>"]);
    CHECK(nmt.src_array.ids[3] == nmt.src_vocab["<pad>"]);
    for (int v : nmt.tgt_array.valid_lens) CHECK((v >= 2 && v <= 8));

    // the seeds' sanity pairs are in the data (d2l's own file: "I lost." is pair 50, "I'm home." pair 350)
    pairs = read_tatoeba(tatoeba_path(data));
    CHECK(pairs.english.size() == 167130);
    CHECK(pairs.english[49] == "I lost.");
    CHECK(pairs.english[349] == "I'm home.");
    bool lost = false, home = false;
    for (std::size_t i = 0; i < pairs.english.size(); ++i) {
        lost = lost || (pairs.english[i] == "I lost." && pairs.french[i] == "J'ai perdu.");
        home = home || (pairs.english[i] == "I'm home." && pairs.french[i] == "Je suis chez moi.");
    }
    CHECK(lost);
    CHECK(home);
}
