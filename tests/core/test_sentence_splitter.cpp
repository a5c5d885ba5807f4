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
