// A text's translations laid out as the text was: sentences side by side on their lines, and the clauses of a long
// sentence, each translated as a sentence, joined into one sentence again with the target language's comma and
// conjunction or semicolon, the joined clause starting in lower case where that language writes it so.
#include <doctest/doctest.h>

#include "error.h"
#include "text/sentence_splitter.h"
#include "translate/clause_join.h"

#include <string>
#include <vector>

using namespace attend;

namespace {

using S = std::vector<std::string>;

// The segments of `text` as Translator::segments finds them (no non-breaking prefixes needed here).
std::vector<Clause> segments_of(const std::string& text, Lang source, int max_words) {
    std::vector<Clause> out;
    for (const SentenceSpan& sentence : split_sentences(text, NonbreakingPrefixes::parse("")))
        for (Clause& c : split_clauses(text, sentence, source, max_words)) out.push_back(std::move(c));
    return out;
}

struct Placed {
    S joiners, texts;
    std::string line;  // the joiners and texts one after another
};
Placed place(const std::string& text, const S& translations, Lang source, Lang target, bool tokenized = false) {
    const std::vector<Clause> segments = segments_of(text, source, 8);
    REQUIRE(segments.size() == translations.size());
    Placed out;
    for (const PlacedTranslation& p : place_translations(text, segments, translations, target, tokenized)) {
        out.joiners.push_back(p.joiner);
        out.texts.push_back(p.text);
        out.line += p.joiner + p.text;
    }
    return out;
}

const std::string kLong =
    "A man in an orange hat is staring at something, and a small dog is running on the green grass; a girl in a "
    "white uniform breaks a stick with a kick.";

}  // namespace

TEST_CASE("clauses are joined into one sentence: the comma and conjunction or the semicolon, no mark between") {
    const Placed de = place(kLong,
                            {"Ein Mann mit einem orangefarbenen Hut starrt auf etwas.",
                             "Ein kleiner Hund läuft auf dem grünen Gras.",
                             "Ein Mädchen in einer weißen Uniform zerbricht einen Stock mit einem Tritt."},
                            Lang::en, Lang::de);
    CHECK(de.joiners == S{"", ", und ", "; "});
    CHECK(de.line ==
          "Ein Mann mit einem orangefarbenen Hut starrt auf etwas, und ein kleiner Hund läuft auf dem grünen Gras; ein "
          "Mädchen in einer weißen Uniform zerbricht einen Stock mit einem Tritt.");
    // French writes a space before the semicolon, and drops the space it wrote before a mark with the mark.
    const Placed fr = place(kLong, {"Un homme regarde quelque chose !", "Un petit chien court sur l'herbe !", "Une fille casse un bâton."},
                            Lang::en, Lang::fr);
    CHECK(fr.line == "Un homme regarde quelque chose, et un petit chien court sur l'herbe ; une fille casse un bâton.");
    // Tokenized translations get tokenized joiners.
    const Placed tok = place(kLong, {"Ein Mann starrt .", "Ein Hund läuft .", "Ein Mädchen tritt ."}, Lang::en, Lang::de,
                             /*tokenized=*/true);
    CHECK(tok.line == "Ein Mann starrt , und ein Hund läuft ; ein Mädchen tritt .");
    // German into English: "and", and the source's own question mark stays where its clause had one.
    const std::string question = "Ist der alte Mann im roten Mantel noch da?, und spielen die zwei Kinder draußen?";
    CHECK(place(question, {"Is the old man in the red coat still there?", "Are the two children playing outside?"},
                Lang::de, Lang::en)
              .line == "Is the old man in the red coat still there?, and are the two children playing outside?");
    // A clause whose translation has no final mark, or an ellipsis, keeps what it has.
    CHECK(place(kLong, {"Ein Mann starrt...", "Ein Hund läuft", "Ein Mädchen tritt."}, Lang::en, Lang::de).line ==
          "Ein Mann starrt..., und ein Hund läuft; ein Mädchen tritt.");
}

TEST_CASE("sentences stay sentences, side by side on their lines, and a failed segment takes no place") {
    const std::string text = "A dog runs.\n" + kLong + " Two children play.";
    const S translations = {"Ein Hund rennt.", "Ein Mann starrt.", "Ein Hund läuft.", "Ein Mädchen tritt.",
                            "Zwei Kinder spielen."};
    const std::vector<Clause> segments = segments_of(text, Lang::en, 8);
    REQUIRE(segments.size() == 5);
    std::vector<PlacedTranslation> placed = place_translations(text, segments, translations, Lang::de);
    S joiners;
    for (const PlacedTranslation& p : placed) joiners.push_back(p.joiner);
    CHECK(joiners == S{"", "", ", und ", "; ", " "});
    CHECK(placed[4].text == "Zwei Kinder spielen.");
    CHECK(placed[3].text == "ein Mädchen tritt.");  // the sentence's end keeps its mark

    // The middle clause failed: the next joins the first. The first clause failed: the second starts the line, as a
    // sentence would.
    S failed = translations;
    failed[2] = "";
    placed = place_translations(text, segments, failed, Lang::de);
    CHECK(placed[2].joiner.empty());
    CHECK(placed[2].text.empty());
    CHECK(placed[1].text == "Ein Mann starrt");
    CHECK(placed[3].joiner == "; ");
    failed = translations;
    failed[1] = "";
    placed = place_translations(text, segments, failed, Lang::de);
    CHECK(placed[2].joiner.empty());
    CHECK(placed[2].text == "Ein Hund läuft");  // what is left of the sentence starts as a sentence
    CHECK(placed[3].joiner == "; ");
    CHECK(placed[4].joiner == " ");
    // The sentence's every clause failed: the next sentence starts the line.
    failed = {"Ein Hund rennt.", "", "", "", "Zwei Kinder spielen."};
    placed = place_translations(text, segments, failed, Lang::de);
    CHECK(placed[4].joiner.empty());

    CHECK_THROWS_WITH_AS(place_translations(text, segments, {"Ein Hund rennt."}, Lang::de),
                         "place_translations: 5 segments but 1 translations", Error);
}

TEST_CASE("a joined clause starts in lower case, but for names, acronyms, English 'I' and German nouns") {
    CHECK(lower_clause_start("A dog runs.", Lang::en, "un chien court.") == "a dog runs.");
    CHECK(lower_clause_start("Un chien court.", Lang::fr, "a dog runs.") == "un chien court.");
    CHECK(lower_clause_start("Über ihm fliegen Möwen.", Lang::de, "gulls fly above him.") == "über ihm fliegen Möwen.");
    CHECK(lower_clause_start("«Un» chien court.", Lang::fr, "a dog runs.") == "«un» chien court.");
    // English "I", in its forms.
    CHECK(lower_clause_start("I see a dog.", Lang::en, "je vois un chien.") == "I see a dog.");
    CHECK(lower_clause_start("I'm running.", Lang::en, "je cours.") == "I'm running.");
    CHECK(lower_clause_start("It is late.", Lang::en, "il est tard.") == "it is late.");
    // A name the source writes so; a capital inside the word.
    CHECK(lower_clause_start("Paris ist schön.", Lang::de, "Paris is beautiful.") == "Paris ist schön.");
    CHECK(lower_clause_start("Paris is beautiful.", Lang::en, "Paris est belle.") == "Paris is beautiful.");
    CHECK(lower_clause_start("USA is big.", Lang::en, "les États-Unis sont grands.") == "USA is big.");
    CHECK(lower_clause_start("McDonald's is open.", Lang::en, "le restaurant est ouvert.") == "McDonald's is open.");
    // German keeps a noun's capital, and any word that is not of the closed classes.
    CHECK(lower_clause_start("Leute reparieren ein Dach.", Lang::de, "people repair a roof.") ==
          "Leute reparieren ein Dach.");
    CHECK(lower_clause_start("Kleine Kinder spielen.", Lang::de, "small children play.") == "Kleine Kinder spielen.");
    CHECK(lower_clause_start("Zwei Hunde spielen.", Lang::de, "two dogs play.") == "zwei Hunde spielen.");
    CHECK(lower_clause_start("Sie spielen.", Lang::de, "they play.") == "sie spielen.");
    // Nothing to lower: already lower case, no letter, empty.
    CHECK(lower_clause_start("ein Hund.", Lang::de, "a dog.") == "ein Hund.");
    CHECK(lower_clause_start("25 Hunde.", Lang::de, "25 dogs.") == "25 Hunde.");
    CHECK(lower_clause_start("", Lang::de, "").empty());
}
