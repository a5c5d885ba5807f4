#include <doctest/doctest.h>

#include <string>

#include "error.h"
#include "text/detokenizer.h"
#include "text/moses_pipeline.h"
#include "text/nonbreaking_prefixes.h"
#include "text/normalize_punctuation.h"
#include "text/tokenizer.h"

using namespace attend;

namespace {

// A few entries in the nonbreaking_prefix file format (the real lists live in ../shared/data).
NonbreakingPrefixes sample_prefixes() {
    return NonbreakingPrefixes::parse("#comment line\nMr\nDr\na\nz.B\n\nNo #NUMERIC_ONLY# \npp #NUMERIC_ONLY#\n");
}

std::string tok(const std::string& text, Lang lang, TokenizeOptions options = {}) {
    return tokenize_line(text, lang, sample_prefixes(), options);
}

}  // namespace

TEST_CASE("nonbreaking prefixes: file format, numeric-only entries, JSON round-trip") {
    NonbreakingPrefixes prefixes = sample_prefixes();
    CHECK(prefixes.size() == 6);
    CHECK(prefixes.kind("Mr") == NonbreakingPrefixes::Kind::always);
    CHECK(prefixes.kind("z.B") == NonbreakingPrefixes::Kind::always);
    CHECK(prefixes.kind("No") == NonbreakingPrefixes::Kind::numeric_only);
    CHECK(prefixes.kind("pp") == NonbreakingPrefixes::Kind::numeric_only);
    CHECK(prefixes.kind("#comment line") == NonbreakingPrefixes::Kind::none);
    CHECK(prefixes.kind("mr") == NonbreakingPrefixes::Kind::none);  // case-sensitive, as in Moses
    nlohmann::json j = prefixes;
    NonbreakingPrefixes back = j.get<NonbreakingPrefixes>();
    CHECK(back.size() == prefixes.size());
    CHECK(back.kind("No") == NonbreakingPrefixes::Kind::numeric_only);
    CHECK_THROWS_AS(nlohmann::json::parse("[1,2]").get<NonbreakingPrefixes>(), Error);
}

TEST_CASE("tokenizer: punctuation, commas and runs of dots") {
    CHECK(tok("Hello, world!", Lang::en) == "Hello , world !");
    CHECK(tok("It costs 5,300 dollars, not 6,000.", Lang::en) == "It costs 5,300 dollars , not 6,000 .");
    CHECK(tok("A,B,C", Lang::en) == "A , B , C");
    CHECK(tok("He paid 5,", Lang::en) == "He paid 5 ,");
    CHECK(tok("Wait... what?", Lang::en) == "Wait ... what ?");
    CHECK(tok("so..", Lang::en) == "so ..");
    CHECK(tok("a (big) dog: yes; 50% of it/them", Lang::en) == "a ( big ) dog : yes ; 50 % of it / them");
    CHECK(tok("  spaced \t out  ", Lang::en) == "spaced out");
    CHECK(tok("", Lang::en).empty());
    CHECK(tok("a\x01" "b", Lang::en) == "ab");  // ASCII control characters go
}

TEST_CASE("tokenizer: hyphens stay inside words unless aggressive splitting is on") {
    CHECK(tok("a blond-haired boy", Lang::en) == "a blond-haired boy");
    TokenizeOptions aggressive;
    aggressive.aggressive_hyphen_splitting = true;
    CHECK(tok("a blond-haired boy", Lang::en, aggressive) == "a blond @-@ haired boy");
}

TEST_CASE("tokenizer: contractions split the language's way, XML escaping by default") {
    CHECK(tok("a kid's table", Lang::en) == "a kid &apos;s table");
    CHECK(tok("the 1990's", Lang::en) == "the 1990 &apos;s");
    CHECK(tok("the boys' toys", Lang::en) == "the boys &apos; toys");
    CHECK(tok("qu'un homme", Lang::fr) == "qu&apos; un homme");
    CHECK(tok("l'homme", Lang::fr) == "l&apos; homme");
    CHECK(tok("Joe's Laden", Lang::de) == "Joe &apos; s Laden");
    CHECK(tok("Q&A <b> \"x\" [y] a|b", Lang::en) ==
          "Q &amp; A &lt; b &gt; &quot; x &quot; &#91; y &#93; a &#124; b");
    TokenizeOptions raw;
    raw.escape_xml = false;
    CHECK(tok("a kid's \"toy\"", Lang::en, raw) == "a kid 's \" toy \"");
    CHECK(unescape_xml("a &amp; b &apos;s &quot;x&quot; &lt;&gt; &#91;&#93; &#124; &amp;amp;") ==
          "a & b 's \"x\" <> [] | &amp;");
}

TEST_CASE("tokenizer: final periods and non-breaking prefixes (the Multi30K Moses snapshot)") {
    CHECK(tok("I saw Dr. Smith.", Lang::en) == "I saw Dr. Smith .");
    CHECK(tok("I saw Xy. Smith.", Lang::en) == "I saw Xy . Smith .");
    CHECK(tok("see the u.s. today", Lang::en) == "see the u.s. today");  // inner period and a letter
    CHECK(tok("see p. seven", Lang::en) == "see p. seven");              // next word lowercase
    CHECK(tok("Call No. 5 now", Lang::en) == "Call No. 5 now");          // numeric-only before a number
    CHECK(tok("Say No. Now", Lang::en) == "Say No . Now");
    // the last word is checked like the others: "a" is a prefix in this list, so the period stays
    CHECK(tok("bus der Linie a.", Lang::de) == "bus der Linie a.");
    // ".'" at the end: Moses leaves a trailing space there (the Multi30K tok files have it too)
    CHECK(tok("He said 'go.'", Lang::en) == "He said &apos; go . &apos; ");
}

TEST_CASE("tokenizer: invalid UTF-8 names the byte offset") {
    try {
        tok("ok \xE2\x82 broken", Lang::en);
        FAIL("expected attend::Error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("byte 3") != std::string::npos);
    }
}

TEST_CASE("normalize punctuation: quotes, dashes, guillemets, pseudo-spaces, language rules") {
    CHECK(normalize_punctuation("„Hallo“ – sagte er", Lang::de) == "\"Hallo\" - sagte er");
    CHECK(normalize_punctuation("it’s “fine”…", Lang::en) == "it's \"fine...\"");  // en: periods inside quotes
    CHECK(normalize_punctuation("a—b", Lang::en) == "a - b");
    CHECK(normalize_punctuation("« Bonjour » dit-il", Lang::fr) == "\"Bonjour\" dit-il");
    CHECK(normalize_punctuation("word ( inside ) .", Lang::en) == "word (inside).");
    CHECK(normalize_punctuation("50 %", Lang::en) == "50%");
    CHECK(normalize_punctuation("Ça va\xC2\xA0?", Lang::fr) == "Ça va?");
    CHECK(normalize_punctuation("120\xC2\xA0" "cm", Lang::de) == "120 cm");
    CHECK(normalize_punctuation("10\xC2\xA0" "000 euros", Lang::fr) == "10,000 euros");
    CHECK(normalize_punctuation("10\xC2\xA0" "000 dollars", Lang::en) == "10.000 dollars");
    CHECK(normalize_punctuation("10 000 dollars", Lang::fr) == "10 000 dollars");  // an ordinary space stays
    CHECK(normalize_punctuation("he said \"yes\", then", Lang::en) == "he said \"yes,\" then");
    CHECK(normalize_punctuation("er sagte \"ja,\" dann", Lang::de) == "er sagte \"ja\", dann");
    CHECK(normalize_punctuation("er sagte \"ja.\"", Lang::de) == "er sagte \"ja\".");
    CHECK(normalize_punctuation("a ` b '' c", Lang::en) == "a ' b \" c");
}

TEST_CASE("Moses pipeline: lowercase, normalize, tokenize in one call") {
    NonbreakingPrefixes prefixes = sample_prefixes();
    CHECK(moses_preprocess_line("Ein Mann sitzt auf einer „Bank“.", Lang::de, prefixes) ==
          "ein mann sitzt auf einer &quot; bank &quot; .");
    CHECK(moses_preprocess_line("L’Homme à l'ÉCOLE.", Lang::fr, prefixes) == "l&apos; homme à l&apos; école .");
    std::vector<std::string> tokens = moses_preprocess("Two dogs, one ball.", Lang::en, prefixes);
    CHECK(tokens == std::vector<std::string>{"two", "dogs", ",", "one", "ball", "."});
}

TEST_CASE("detokenizer: display text from tokens") {
    CHECK(detokenize("a man &apos;s hat , on a table .", Lang::en) == "A man's hat, on a table.");
    CHECK(detokenize("he doesn &apos;t know &quot; why &quot; ( really ) !", Lang::en) ==
          "He doesn't know \"why\" (really)!");
    CHECK(detokenize("il est mouillé .", Lang::fr) == "Il est mouillé.");
    CHECK(detokenize("qu&apos; un homme voit l&apos; école ?", Lang::fr) == "Qu'un homme voit l'école ?");
    CHECK(detokenize("ein laden von trader joe &apos; s .", Lang::de) == "Ein laden von trader joe's.");
    DetokenizeOptions keep_case;
    keep_case.capitalize_first = false;
    CHECK(detokenize("über 10 , 5 ...", Lang::de, keep_case) == "über 10, 5...");
    CHECK(detokenize(std::vector<std::string>{"élan", "!"}, Lang::en) == "Élan!");
}

TEST_CASE("detokenizer: cased text as a person writes it") {
    DetokenizeOptions keep_case;
    keep_case.capitalize_first = false;
    // German quotation marks and dashes
    CHECK(detokenize("Ein Schild , auf dem &quot; Welcome Bikers &quot; steht .", Lang::de) ==
          "Ein Schild, auf dem \u201EWelcome Bikers\u201C steht.");
    CHECK(detokenize("unter einer &quot; Mongolian BBQ &quot; -Leuchtreklame", Lang::de, keep_case) ==
          "unter einer \u201EMongolian BBQ\u201C-Leuchtreklame");
    CHECK(detokenize("Vier Menschen - drei Mädchen und ein Junge - sind auf einem Boot .", Lang::de) ==
          "Vier Menschen \u2013 drei Mädchen und ein Junge \u2013 sind auf einem Boot.");
    CHECK(detokenize("ein T-Shirt", Lang::de) == "Ein T-Shirt");  // a hyphen inside a word stays
    CHECK(detokenize("er sagt &quot; ja &quot; .", Lang::en) == "Er sagt \"ja\".");
    // apostrophes: possessives, quotations in single quotes, English words with an apostrophe inside
    CHECK(detokenize("in einem McDonald &apos; s-Restaurant bei McDonald &apos; s.", Lang::de) ==
          "In einem McDonald's-Restaurant bei McDonald's.");
    CHECK(detokenize("under a &apos; Grand Opening &apos; sign .", Lang::en) == "Under a 'Grand Opening' sign.");
    CHECK(detokenize("the boys &apos; toys", Lang::en) == "The boys' toys");
    CHECK(detokenize("hors d &apos;oeuvres from O &apos;Neil", Lang::en) == "Hors d'oeuvres from O'Neil");
    // a contraction a model spelled as three tokens is one word; a quoted letter and a plural possessive are not
    CHECK(detokenize("I &apos; m sure they &apos; re here , we &apos; ve seen you &apos; ll see he &apos; d say so , "
                     "don &apos; t worry",
                     Lang::en) == "I'm sure they're here, we've seen you'll see he'd say so, don't worry");
    CHECK(detokenize("under a &apos; d &apos; sign", Lang::en) == "Under a 'd' sign");
    CHECK(detokenize("the boys &apos; t-shirts", Lang::en) == "The boys' t-shirts");
    // initials around &, slashes, times, degrees, repeated periods
    CHECK(detokenize("a Texas A &amp; M player at a Q &amp; A , red &amp; black", Lang::en) ==
          "A Texas A&M player at a Q&A, red & black");
    CHECK(detokenize("Freund / in", Lang::de) == "Freund/in");
    CHECK(detokenize("il reste 53 : 11 .", Lang::fr) == "Il reste 53:11.");
    CHECK(detokenize("il dit : oui", Lang::fr) == "Il dit : oui");
    CHECK(detokenize("un 360 ° sur le trottoir", Lang::fr) == "Un 360° sur le trottoir");
    CHECK(detokenize("über den Sand ..", Lang::de) == "Über den Sand..");
    // nothing escaped is left for a reader
    for (const char* line : {"a &apos; b &quot; c &amp; d &lt; e &gt; f &#91; g &#93; h &#124; i"}) {
        std::string text = detokenize(line, Lang::en);
        CAPTURE(text);
        CHECK(text.find("&apos;") == std::string::npos);
        CHECK(text.find("&quot;") == std::string::npos);
        CHECK(text.find("&amp;") == std::string::npos);
        CHECK(text.find("&#") == std::string::npos);
    }
}
