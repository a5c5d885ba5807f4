// The language word lists (text/word_lists.h): their text format, and that the built-in ones are what the rules
// that use them read.
#include <doctest/doctest.h>

#include "error.h"
#include "text/lang.h"
#include "text/vocab.h"
#include "text/word_lists.h"
#include "translate/copy_through.h"

#include <string>
#include <vector>

using namespace attend;

TEST_CASE("word lists: one word a line, comments and empty lines skipped, spaces around a word not part of it") {
    const WordList list = WordList::parse("# articles\n\nder\r\n  die \n#das\n\tdas\nl'\n", "test list");
    CHECK(list.words() == std::vector<std::string>{"der", "die", "das", "l'"});
    CHECK(list.contains("die"));
    CHECK_FALSE(list.contains("#das"));
    CHECK_FALSE(list.contains("Der"));  // as written: the rules lowercase what they look up where they mean to
    CHECK(WordList::parse("", "empty").size() == 0);
    CHECK_THROWS_WITH_AS(WordList::parse("der\nein Hund\n", "de/x.txt"),
                         "de/x.txt, line 2: \"ein Hund\" holds a space: one word a line", Error);
    CHECK_THROWS_WITH_AS(WordList::parse("der\n\ndie\nder\n", "de/x.txt"),
                         "de/x.txt, line 4: \"der\" is listed twice", Error);
    CHECK_THROWS_AS(WordList::parse("d\xff\n", "bad"), Error);
}

TEST_CASE("word lists: the built-in lists parse, and a missing one is an error naming it") {
    REQUIRE_FALSE(builtin_word_list_texts().empty());
    for (const auto& [name, text] : builtin_word_list_texts()) {
        CAPTURE(name);
        CHECK(word_list(name).size() > 0);
    }
    CHECK(word_list("de/articles").contains("einem"));
    CHECK(word_list("de/clause_starts").contains("über"));
    CHECK(word_list("zh/closed_class").contains("的"));
    CHECK(find_word_list("ja/closed_class") == nullptr);
    CHECK_THROWS_WITH_AS(word_list("xx/nothing"), "no word list named \"xx/nothing\" (data/lang/xx/nothing.txt)",
                         Error);
}

TEST_CASE("word lists: every given name of the list is a name to copy-through, a word of the vocabulary or not") {
    const std::vector<std::string> special = {"<unk>", "<pad>", "<bos>", "<eos>", "plays", "."};
    for (const std::string& name : word_list("mul/given_names").words()) {
        CAPTURE(name);
        const std::string text = name + " plays .";
        for (bool known : {false, true}) {
            std::vector<std::string> tokens = special;
            if (known) tokens.push_back(name);
            const std::vector<CopySpan> spans = find_name_spans(text, Lang::en, Vocab::from_id_order(tokens));
            REQUIRE(spans.size() == 1);
            CHECK(text.substr(spans[0].begin, spans[0].end - spans[0].begin) == name);
        }
    }
    // A known capitalized word that the list lacks is the model's to translate.
    const Vocab vocab = Vocab::from_id_order({"<unk>", "<pad>", "<bos>", "<eos>", "Frisbee", "plays", "."});
    CHECK(find_name_spans("Frisbee plays .", Lang::en, vocab).empty());
}
