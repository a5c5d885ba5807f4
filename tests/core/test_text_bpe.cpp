#include <doctest/doctest.h>

#include <random>
#include <string>

#include "core/test_text_bpe_reference.h"
#include "error.h"
#include "text/bpe.h"

using namespace attend;

namespace {

WordCounts classic_counts() {  // Sennrich et al.'s example vocabulary
    return {{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}};
}

}  // namespace

TEST_CASE("bpe: counting words keeps first-seen order") {
    WordCounts counts = count_words({"a b  a", "c b a"});
    REQUIRE(counts.size() == 3);
    CHECK(counts[0] == std::pair<std::string, std::int64_t>{"a", 3});
    CHECK(counts[1] == std::pair<std::string, std::int64_t>{"b", 2});
    CHECK(counts[2] == std::pair<std::string, std::int64_t>{"c", 1});
}

TEST_CASE("bpe: learning on the classic example, ties to the greater pair") {
    // Counts worked by hand: (e,s) and (s,t</w>) both occur 9 times; the greater pair (s,t</w>) wins.
    // Then (e,st</w>) 9; then (l,o) 7; then a three-way tie at 6 among (n,e), (e,w), (w,est</w>).
    Bpe bpe = Bpe::learn(classic_counts(), 4);
    REQUIRE(bpe.size() == 4);
    CHECK(bpe.merges()[0] == BpeMerge{"s", "t</w>"});
    CHECK(bpe.merges()[1] == BpeMerge{"e", "st</w>"});
    CHECK(bpe.merges()[2] == BpeMerge{"l", "o"});
    CHECK(bpe.merges()[3] == BpeMerge{"w", "est</w>"});
    CHECK(bpe.apply_line("lowest newer") == "lo@@ west n@@ e@@ w@@ e@@ r");
    CHECK(bpe.encode_word("lowest") == std::vector<std::string>{"lo", "west"});
    CHECK(bpe.encode_word("x") == std::vector<std::string>{"x"});
    // min_frequency stops learning once no pair is frequent enough
    CHECK(Bpe::learn(classic_counts(), 1000, 6).size() < Bpe::learn(classic_counts(), 1000, 2).size());
    CHECK(Bpe::learn(classic_counts(), 0).size() == 0);
    CHECK_THROWS_AS(Bpe::learn(classic_counts(), -1), Error);
}

TEST_CASE("bpe: the incremental learner agrees with a full recount on a random corpus") {
    std::mt19937 rng(7);
    const std::vector<std::string> letters = {"a", "b", "c", "d", "e", "é", "ß", "n", "r", "s"};
    std::vector<std::string> lines;
    for (int l = 0; l < 300; ++l) {
        std::string line;
        for (int w = 0; w < 8; ++w) {
            int length = 1 + static_cast<int>(rng() % 7);
            for (int c = 0; c < length; ++c) line += letters[rng() % 5 + (rng() % 3 == 0 ? 5 : 0)];
            line += ' ';
        }
        lines.push_back(line);
    }
    WordCounts counts = count_words(lines);
    std::vector<BpeMerge> expected = test::reference_learn_bpe(counts, 150);
    Bpe bpe = Bpe::learn(counts, 150);
    REQUIRE(bpe.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("merge " << i);
        CHECK(bpe.merges()[i] == expected[i]);
    }
    for (const std::string& line : lines) CHECK(undo_bpe(bpe.apply_line(line)) + " " == line);
}

TEST_CASE("bpe: apply merges by rank at every position, left to right") {
    Bpe bpe({{"a", "a"}, {"aa", "a</w>"}});
    CHECK(bpe.encode_word("aaa") == std::vector<std::string>{"aaa"});
    // (a,a) merges at position 0; position 1 overlaps it; (a,a</w>) is not a merge: "aa a a"
    CHECK(bpe.encode_word("aaaa") == std::vector<std::string>{"aa", "a", "a"});
    CHECK(bpe.apply(std::vector<std::string>{"aaaa", "b"}) == std::vector<std::string>{"aa@@", "a@@", "a", "b"});
    CHECK_THROWS_AS(bpe.encode_word("\xC3"), Error);
}

TEST_CASE("bpe: undo removes continuation markers") {
    CHECK(undo_bpe("wal@@ king to@@ day") == "walking today");
    CHECK(undo_bpe("trailing@@") == "trailing");
    CHECK(undo_bpe("trailing@@ ") == "trailing");
    CHECK(undo_bpe("e@@ mail a@b") == "email a@b");
    CHECK(undo_bpe(std::vector<std::string>{"wal@@", "king", "to@@", "day"}) ==
          std::vector<std::string>{"walking", "today"});
}

TEST_CASE("bpe: codes text and JSON round-trip; malformed input is rejected") {
    Bpe bpe = Bpe::learn(classic_counts(), 10);
    std::string codes = bpe.to_codes_text();
    CHECK(codes.rfind("#version: 0.2\ns t</w>\n", 0) == 0);
    CHECK(Bpe::from_codes_text(codes).merges() == bpe.merges());
    nlohmann::json j = bpe;
    CHECK(j["merges"][0] == nlohmann::json::array({"s", "t</w>"}));
    Bpe back = j.get<Bpe>();
    CHECK(back.merges() == bpe.merges());
    CHECK(back.apply_line("lowest") == bpe.apply_line("lowest"));
    CHECK_THROWS_AS(Bpe::from_codes_text("#version: 0.2\nonlyone\n"), Error);
    CHECK_THROWS_AS(nlohmann::json::parse(R"({"merges": [["a"]]})").get<Bpe>(), Error);
    CHECK_THROWS_AS(nlohmann::json::parse(R"({"merges": [], "separator": "##"})").get<Bpe>(), Error);
}

TEST_CASE("bpe: split_digits learns no merge with a digit, so numbers stay one piece per digit") {
    WordCounts counts = {{"2015", 50}, {"2016", 40}, {"10", 30}, {"room101", 20}, {"a1b2", 10},
                         {"the", 40},  {"year", 25}, {"3rd", 15}, {"1,000", 12}};
    auto has_digit = [](const std::string& symbol) {
        for (char c : symbol)
            if (c >= '0' && c <= '9') return true;
        return false;
    };
    auto merges_with_digits = [&](const Bpe& bpe) {
        int n = 0;
        for (const BpeMerge& merge : bpe.merges()) n += has_digit(merge.first) || has_digit(merge.second);
        return n;
    };
    // Without the option the frequent numbers are merged first, which is what the option prevents.
    CHECK(merges_with_digits(Bpe::learn(counts, 100)) > 0);

    Bpe bpe = Bpe::learn(counts, 100, 2, true);
    CHECK(bpe.size() > 0);
    CHECK(merges_with_digits(bpe) == 0);
    CHECK(bpe.encode_word("the") == std::vector<std::string>{"the"});  // letters still merge
    CHECK(bpe.encode_word("2015") == std::vector<std::string>{"2", "0", "1", "5"});
    CHECK(bpe.apply_line("2015 , 2017") == "2@@ 0@@ 1@@ 5 , 2@@ 0@@ 1@@ 7");
    CHECK(undo_bpe(bpe.apply_line("room101 a1b2 1,000")) == "room101 a1b2 1,000");
    for (const std::string& piece : bpe.encode_word("room101"))
        if (has_digit(piece)) CHECK(piece.size() == 1);
}
