// Sentence splitting as Moses' split-sentences.perl does it, with a few non-breaking prefixes in the lists'
// format: what ends a sentence, what does not (abbreviations, acronyms, numbers, lower-case continuations),
// quotes and brackets, ellipses, and lines kept with every span pointing at its bytes.
#include <doctest/doctest.h>

#include "error.h"
#include "text/sentence_splitter.h"

#include <string>
#include <vector>

using namespace attend;

namespace {

NonbreakingPrefixes prefixes() {
    return NonbreakingPrefixes::parse("Mr\nDr\nMrs\nz.B\nusw\nA\nB\nNo #NUMERIC_ONLY#\nArt #NUMERIC_ONLY#\n");
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    for (const SentenceSpan& s : split_sentences(text, prefixes())) out.push_back(text.substr(s.begin, s.end - s.begin));
    return out;
}

using S = std::vector<std::string>;

}  // namespace

TEST_CASE("a period, question or exclamation mark before an upper-case word ends a sentence") {
    CHECK(split("A man is walking. A woman is sitting on a bench. Two children play.") ==
          S{"A man is walking.", "A woman is sitting on a bench.", "Two children play."});
    CHECK(split("Is it raining? Yes! It is.") == S{"Is it raining?", "Yes!", "It is."});
    CHECK(split("Ist das Wasser kalt? Überhaupt nicht.") == S{"Ist das Wasser kalt?", "Überhaupt nicht."});
    CHECK(split("One sentence without an end") == S{"One sentence without an end"});
}

TEST_CASE("a lower-case continuation does not start a sentence; a digit does after a period only") {
    CHECK(split("Wait. then go.") == S{"Wait. then go."});
    CHECK(split("Really? no.") == S{"Really? no."});
    CHECK(split("He left at noon. 3 dogs stayed.") == S{"He left at noon.", "3 dogs stayed."});
    CHECK(split("Why? 3 dogs stayed.") == S{"Why? 3 dogs stayed."});
}

TEST_CASE("abbreviations, acronyms and numeric-only prefixes do not end a sentence") {
    CHECK(split("Mr. Smith met Dr. Jones.") == S{"Mr. Smith met Dr. Jones."});
    CHECK(split("Er kauft Obst, z.B. Äpfel und Birnen.") == S{"Er kauft Obst, z.B. Äpfel und Birnen."});
    CHECK(split("He lives in the U.S. He works there.") == S{"He lives in the U.S. He works there."});
    CHECK(split("See No. 5 on the list.") == S{"See No. 5 on the list."});
    CHECK(split("The answer is No. Nobody came.") == S{"The answer is No.", "Nobody came."});
    // A prefix inside closing punctuation is no longer an abbreviation.
    CHECK(split("He called him \"Mr.\" Then he left.") == S{"He called him \"Mr.\"", "Then he left."});
}

TEST_CASE("numbers with decimal points and prices stay in their sentence") {
    CHECK(split("It costs 3.5 dollars. The cat weighs 4.25 kg.") == S{"It costs 3.5 dollars.", "The cat weighs 4.25 kg."});
    CHECK(split("Version 2.0.1 is out.") == S{"Version 2.0.1 is out."});
}

TEST_CASE("quotes and brackets around the end of a sentence or the start of the next") {
    CHECK(split("He said \"Stop.\" Then he ran.") == S{"He said \"Stop.\"", "Then he ran."});
    CHECK(split("She asked (why?) Nobody knew.") == S{"She asked (why?)", "Nobody knew."});
    CHECK(split("It ended. \"Go home,\" he said.") == S{"It ended.", "\"Go home,\" he said."});
    CHECK(split("Fertig. „Geh nach Hause“, sagte er.") == S{"Fertig. „Geh nach Hause“, sagte er."});  // „ is not Pi
    CHECK(split("C'est fini. « Rentre », dit-il.") == S{"C'est fini.", "« Rentre », dit-il."});
    CHECK(split("Done. ¿Qué pasa?") == S{"Done.", "¿Qué pasa?"});
}

TEST_CASE("an ellipsis ends a sentence before an upper-case word, not before a lower-case one") {
    CHECK(split("Well... Maybe tomorrow.") == S{"Well...", "Maybe tomorrow."});
    CHECK(split("Well... maybe tomorrow.") == S{"Well... maybe tomorrow."});
    CHECK(split("Wait… What?") == S{"Wait… What?"});  // Moses knows only ASCII dots
}

TEST_CASE("lines are kept: a line break ends a sentence, blank lines hold none, spans point at the bytes") {
    const std::string text = "  A dog runs.  A cat sleeps.\n\nÜber den Fluss\r\n   \nLast line. No end";
    const std::vector<SentenceSpan> spans = split_sentences(text, prefixes());
    REQUIRE(spans.size() == 5);
    const S expected = {"A dog runs.", "A cat sleeps.", "Über den Fluss", "Last line.", "No end"};
    const std::vector<int> lines = {0, 0, 2, 4, 4};
    for (size_t i = 0; i < spans.size(); i++) {
        CAPTURE(i);
        CHECK(text.substr(spans[i].begin, spans[i].end - spans[i].begin) == expected[i]);
        CHECK(spans[i].line == lines[i]);
    }
    CHECK(split_sentences("", prefixes()).empty());
    CHECK(split_sentences(" \n\n \t", prefixes()).empty());
    CHECK(split("Ein\u00A0Hund. Eine Katze.") == S{"Ein\u00A0Hund.", "Eine Katze."});  // a no-break space is a space
}

TEST_CASE("invalid UTF-8 is an error naming the byte") {
    CHECK_THROWS_WITH(split_sentences("A dog. \xff A cat.", prefixes()), doctest::Contains("invalid UTF-8 at byte 7"));
}

namespace {

// The clauses of the whole of `text` (one sentence): the bytes each span points at, and what the model reads.
struct Clauses {
    S spans, texts;
    std::vector<ClauseJoint> joints;
};
Clauses clauses(const std::string& text, Lang lang, int max_words) {
    Clauses out;
    const SentenceSpan sentence{0, text.size(), 3};
    for (const Clause& c : split_clauses(text, sentence, lang, max_words)) {
        CHECK(c.span.line == 3);
        out.spans.push_back(text.substr(c.span.begin, c.span.end - c.span.begin));
        out.texts.push_back(c.text);
        out.joints.push_back(c.joint);
    }
    return out;
}

const std::string kLong =
    "A man in an orange hat is staring at something, and a Boston Terrier is running on green grass, and a girl "
    "in a karate uniform breaks a stick with a kick.";  // 32 words

}  // namespace

TEST_CASE("a sentence longer than max_words is split into clauses at ', and' and ';', each read as a sentence") {
    const Clauses c = clauses(kLong, Lang::en, 24);
    CHECK(c.spans == S{"A man in an orange hat is staring at something", "a Boston Terrier is running on green grass",
                       "a girl in a karate uniform breaks a stick with a kick."});
    CHECK(c.texts == S{"A man in an orange hat is staring at something.", "A Boston Terrier is running on green grass.",
                       "A girl in a karate uniform breaks a stick with a kick."});
    CHECK(c.joints == std::vector<ClauseJoint>{ClauseJoint::none, ClauseJoint::conjunction, ClauseJoint::conjunction});
    // Up to max_words words, or with max_words 0, the sentence is one clause, read as it is.
    CHECK(clauses(kLong, Lang::en, 32).texts == S{kLong});
    CHECK(clauses(kLong, Lang::en, 32).joints == std::vector<ClauseJoint>{ClauseJoint::none});
    CHECK(clauses(kLong, Lang::en, 0).spans == S{kLong});
    CHECK(clauses(kLong, Lang::en, 31).texts.size() == 3);
    // The final mark is the sentence's; a clause that ends in one keeps its own; no mark, none added.
    CHECK(clauses("Is the old man in the red coat still waiting, and are the two children playing outside?", Lang::en, 8)
              .texts == S{"Is the old man in the red coat still waiting?", "Are the two children playing outside?"});
    const Clauses semicolon = clauses("Two dogs run on the beach; a woman throws a ball into the water", Lang::en, 8);
    CHECK(semicolon.texts == S{"Two dogs run on the beach", "A woman throws a ball into the water"});
    CHECK(semicolon.joints == std::vector<ClauseJoint>{ClauseJoint::none, ClauseJoint::semicolon});
}

TEST_CASE("clauses: each language's conjunction, French spacing, and places that do not split") {
    CHECK(clauses("Ein Mann mit einem Hut sitzt auf einer Bank, und ein kleiner Hund schläft zu seinen Füßen.", Lang::de, 8)
              .texts == S{"Ein Mann mit einem Hut sitzt auf einer Bank.", "Ein kleiner Hund schläft zu seinen Füßen."});
    CHECK(clauses("Un homme est assis sur un banc ; un petit chien dort à ses pieds , et un enfant joue au ballon.",
                  Lang::fr, 8)
              .spans == S{"Un homme est assis sur un banc", "un petit chien dort à ses pieds", "un enfant joue au ballon."});
    // Another language's conjunction is a word like any other ("and" in German text; "und" in English).
    const std::string de_and = "Ein Mann mit einem Hut sitzt auf einer Bank, and ein kleiner Hund schläft zu seinen Füßen.";
    CHECK(clauses(de_and, Lang::de, 8).texts == S{de_and});
    CHECK(clauses(de_and, Lang::en, 8).texts.size() == 2);
    // A comma without the conjunction, and the conjunction without a comma, are not clause ends.
    const std::string no_comma = "A man with a hat sits on a bench and a small dog sleeps at his feet, looking tired.";
    CHECK(clauses(no_comma, Lang::en, 8).texts == S{no_comma});
    // Each clause keeps at least kMinClauseWords words; a short one stays with its neighbour.
    const std::string short_side = "Salt, and pepper are on the long wooden table in the old kitchen.";
    CHECK(clauses(short_side, Lang::en, 8).texts == S{short_side});
    CHECK(clauses("A man is cooking; salt, and pepper stand beside the stove in the kitchen.", Lang::en, 8).spans ==
          S{"A man is cooking", "salt, and pepper stand beside the stove in the kitchen."});
    // An HTML entity's semicolon is not a clause end.
    const std::string entity = "Tom &amp; Jerry are sitting on the old sofa in the living room watching television.";
    CHECK(clauses(entity, Lang::en, 8).texts == S{entity});
}

TEST_CASE("clauses point at the bytes of the text, after multi-byte letters too, and upper-case a lower-case start") {
    const std::string text = "Ein Mann läuft über die große Brücke; über ihm fliegen zwei weiße Möwen.";
    const SentenceSpan sentence{4, text.size(), 0};  // "Mann läuft ..."
    const std::vector<Clause> c = split_clauses(text, sentence, Lang::de, 8);
    REQUIRE(c.size() == 2);
    CHECK(text.substr(c[0].span.begin, c[0].span.end - c[0].span.begin) == "Mann läuft über die große Brücke");
    CHECK(text.substr(c[1].span.begin, c[1].span.end - c[1].span.begin) == "über ihm fliegen zwei weiße Möwen.");
    CHECK(c[1].text == "Über ihm fliegen zwei weiße Möwen.");
}

TEST_CASE("Chinese and Japanese full-width marks end a sentence where more follows, spaces or none") {
    CHECK(split("我喜欢吃鱼。你呢？") == S{"我喜欢吃鱼。", "你呢？"});
    CHECK(split("他说：“走吧！”我们就走了。") == S{"他说：“走吧！”", "我们就走了。"});
    CHECK(split("真的吗？！太好了。 明天见。") == S{"真的吗？！", "太好了。", "明天见。"});
    CHECK(split("今日は晴れです。散歩しましょう。") == S{"今日は晴れです。", "散歩しましょう。"});
    CHECK(split("我喜欢吃鱼。") == S{"我喜欢吃鱼。"});
    // Moses' rules still need an upper-case start after a Latin period; the full-width marks need nothing.
    CHECK(split("狗在跑。A dog runs. It is fast.") == S{"狗在跑。", "A dog runs.", "It is fast."});
    // The byte spans stay in order and inside the text.
    const std::string text = "一。二！三？";
    const std::vector<SentenceSpan> spans = split_sentences(text, prefixes());
    REQUIRE(spans.size() == 3);
    CHECK(spans[0].begin == 0);
    CHECK(spans[2].end == text.size());
    for (size_t i = 1; i < spans.size(); i++) CHECK(spans[i].begin == spans[i - 1].end);
}
