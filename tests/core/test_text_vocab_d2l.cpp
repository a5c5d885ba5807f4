#include <doctest/doctest.h>

#include "error.h"
#include "text/d2l_preprocess.h"
#include "text/vocab.h"

using namespace attend;

TEST_CASE("vocab: <unk> is 0, reserved tokens next, then by frequency with first-seen ties, min_freq") {
    std::vector<std::vector<std::string>> lines = {{"b", "a", "c", "a"}, {"d", "b", "a", "e", "d"}};
    Vocab vocab(lines, 2, {"<pad>", "<bos>", "<eos>"});
    // counts: a 3, b 2, d 2, c 1, e 1; b is seen before d
    CHECK(vocab.id_to_token() == std::vector<std::string>{"<unk>", "<pad>", "<bos>", "<eos>", "a", "b", "d"});
    CHECK(vocab.size() == 7);
    CHECK(vocab["a"] == 4);
    CHECK(vocab["c"] == 0);
    CHECK(vocab["never"] == vocab.unk());
    CHECK(vocab.ids({"d", "e", "<eos>"}) == std::vector<int>{6, 0, 3});
    CHECK(vocab.tokens({4, 5, 0}) == std::vector<std::string>{"a", "b", "<unk>"});
    CHECK(vocab.token_freqs().front() == std::pair<std::string, std::int64_t>{"a", 3});
    CHECK(vocab.token_freqs().size() == 5);
    CHECK_THROWS_AS(vocab.token(7), Error);
    CHECK_THROWS_AS(vocab.token(-1), Error);

    Vocab all = Vocab::from_tokens({"x", "y", "x"});
    CHECK(all.id_to_token() == std::vector<std::string>{"<unk>", "x", "y"});
    CHECK(Vocab().size() == 1);
}

TEST_CASE("vocab: a reserved token or <unk> in the corpus is not added twice") {
    Vocab vocab({{"<eos>", "<unk>", "z", "z"}}, 0, {"<eos>"});
    CHECK(vocab.id_to_token() == std::vector<std::string>{"<unk>", "<eos>", "z"});
}

TEST_CASE("vocab: JSON round-trip and validation") {
    Vocab vocab({{"le", "chat", "le"}}, 0, {"<pad>"});
    nlohmann::json j = vocab;
    Vocab back = j.get<Vocab>();
    CHECK(back.id_to_token() == vocab.id_to_token());
    CHECK(back["chat"] == vocab["chat"]);
    CHECK_THROWS_AS(nlohmann::json::parse(R"({"tokens": ["a", "<unk>"]})").get<Vocab>(), Error);
    CHECK_THROWS_AS(nlohmann::json::parse(R"({"tokens": ["<unk>", "a", "a"]})").get<Vocab>(), Error);
    CHECK_THROWS_AS(nlohmann::json::parse(R"({"words": []})").get<Vocab>(), Error);
}

TEST_CASE("d2l preprocess_nmt: non-breaking spaces, lowercase, a space before , . ! ?") {
    CHECK(preprocess_nmt("Go.") == "go .");
    CHECK(preprocess_nmt("J'ai perdu.") == "j'ai perdu .");
    CHECK(preprocess_nmt("Va !") == "va !");
    CHECK(preprocess_nmt("Qui\xE2\x80\xAF?") == "qui ?");  // narrow no-break space
    CHECK(preprocess_nmt("Ça\xC2\xA0va, Élodie?") == "ça va , élodie ?");
    CHECK(preprocess_nmt(".Hi") == ".hi");  // position 0 gets no space
    CHECK(split_words("a  b") == std::vector<std::string>{"a", "", "b"});
    CHECK(split_words("") == std::vector<std::string>{""});
}

TEST_CASE("d2l truncate_pad and build_array_nmt") {
    CHECK(truncate_pad({5, 6, 7}, 5, 1) == std::vector<int>{5, 6, 7, 1, 1});
    CHECK(truncate_pad({5, 6, 7}, 2, 1) == std::vector<int>{5, 6});
    CHECK(truncate_pad({}, 0, 1).empty());
    Vocab vocab({{"go", ".", "go"}, {"."}}, 0, {"<pad>", "<bos>", "<eos>"});
    NmtArray array = build_array_nmt({{"go", "."}, {"go", "go", "go", "x"}}, vocab, 4);
    const int go = vocab["go"], dot = vocab["."], eos = vocab["<eos>"], pad = vocab["<pad>"];
    CHECK(array.rows == 2);
    CHECK(array.ids == std::vector<int>{go, dot, eos, pad, go, go, go, 0});
    CHECK(array.valid_lens == std::vector<int>{3, 4});
    CHECK_THROWS_AS(build_array_nmt({{"a"}}, Vocab::from_tokens({"a"}), 4), Error);
}
