// Markup and pictographs taken out of a text and put back into its translation: what the model reads, where each
// aside goes back, and which characters are text after all.
#include <doctest/doctest.h>

#include "translate/asides.h"
#include "text/utf8.h"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace attend;

namespace {

using S = std::vector<std::string>;

std::string kept(const std::string& text) { return utf8_encode(take_out_asides(utf8_decode(text)).kept); }

S asides(const std::string& text) {
    S out;
    for (const Aside& a : take_out_asides(utf8_decode(text)).asides) out.push_back(a.text);
    return out;
}

// The source's asides put back into `translation`.
std::string round_trip(const std::string& source, const std::string& translation) {
    const TakenOut t = take_out_asides(utf8_decode(source));
    return put_back_asides(translation, t.asides, t.words);
}

}  // namespace

TEST_CASE("asides: HTML tags and comments are taken out, attribute values and all") {
    CHECK(kept("<b>A dog</b> runs on the <i>beach</i>.") == "A dog runs on the beach.");
    CHECK(asides("<b>A dog</b> runs on the <i>beach</i>.") == S{"<b>", "</b>", "<i>", "</i>"});
    CHECK(asides("<a href=\"https://x.org/?a=1&b=2\" title='x > y'>here</a>") ==
          S{"<a href=\"https://x.org/?a=1&b=2\" title='x > y'>", "</a>"});
    CHECK(kept("<!-- note --> A man sleeps.<br/>") == " A man sleeps.");
    CHECK(kept("A dog<br>runs, a <b>big</b>dog.") == "A dog runs, a bigdog.");  // <br> separates; <b> does not
    // Not tags: a "<" before a space or a digit, one never closed, one that opens another first.
    for (const std::string text : {"a < b and c > d", "I <3 dogs", "a <b dog", "x <y <z>"}) {
        CAPTURE(text);
        CHECK(kept(text).find('<') != std::string::npos);
    }
}

TEST_CASE("asides: Markdown marks, code spans and links; stars and underscores inside words stay") {
    CHECK(asides("# A cat sleeps.") == S{"#"});
    CHECK(asides("### Über uns") == S{"###"});
    CHECK(asides("# 8 for Iowa State stiff arms a player.").empty());  // a number sign (test2016)
    CHECK(asides("- A boy jumps.") == S{"-"});
    CHECK(asides("> A boy jumps.") == S{">"});
    CHECK(kept("**Two dogs** play in the _snow_.") == "Two dogs play in the snow.");
    CHECK(asides("Run `ls -la` now.") == S{"`ls -la`"});
    CHECK(asides("[A dog](https://x.org/a_b) runs.") == S{"[", "](https://x.org/a_b)"});
    CHECK(kept("2 * 3 is 6, snake_case stays, -1 too.") == "2 * 3 is 6, snake_case stays, -1 too.");
    CHECK(kept("--- and ## mid-text") == "--- and ## mid-text");  // a mark only at the start, and "-" alone
    CHECK(kept("a [bracket] alone") == "a [bracket] alone");
}

TEST_CASE("asides: pictographs are taken out with a space beside them") {
    CHECK(kept("A dog 🐕 runs on the beach 🏖️ 🌊.") == "A dog  runs on the beach.");
    CHECK(asides("A dog 🐕 runs on the beach 🏖️ 🌊.") == S{"🐕", "🏖️", "🌊"});
    const TakenOut t = take_out_asides(utf8_decode("A dog 🐕 runs on the beach 🏖️ 🌊."));
    CHECK(t.words == 6);
    CHECK(t.asides[0].words_before == 2);
    CHECK_FALSE(t.asides[0].before_punctuation);
    CHECK(t.asides[1].before_punctuation);
    CHECK(t.asides[2].before_punctuation);
}

TEST_CASE("asides: put back at the same share of the words, touching what they touched, in order") {
    CHECK(round_trip("<b>A dog</b> runs on the <i>beach</i>.", "Ein Hund läuft am Strand.") ==
          "<b>Ein Hund</b> läuft am <i>Strand</i>.");
    CHECK(round_trip("A dog 🐕 runs on the beach 🏖️ 🌊.", "Ein Hund läuft am Strand.") ==
          "Ein Hund 🐕 läuft am Strand 🏖️ 🌊.");
    CHECK(round_trip("- A boy jumps into the water.", "Ein Junge springt ins Wasser.") ==
          "- Ein Junge springt ins Wasser.");
    CHECK(round_trip("<p>Two men play.</p>", "Zwei Männer spielen.") == "<p>Zwei Männer spielen.</p>");
    CHECK(round_trip("A dog runs on the beach 🏖️ !", "Un chien court sur la plage !") ==
          "Un chien court sur la plage 🏖️ !");
    // Tags stay well nested however the words fall: one inside the last word, one near the end of a long source.
    const std::string nested = round_trip("Two big dog<b>s</b>.", "Zwei Hunde.");
    CHECK(nested.find("<b>") < nested.find("</b>"));
    const std::string late = round_trip("One two three four five six seven eight <i>nine</i> ten 🐕.", "Eins zwei.");
    CHECK(late.find("<i>") < late.find("</i>"));
    CHECK(late.find("</i>") < late.find("🐕"));
    // An empty translation still holds every aside, in order.
    CHECK(round_trip("<b>A</b> 🐕 dog", "") == "<b></b> 🐕");
}

TEST_CASE("asides: HTML character references are read as characters, and HTML gets an HTML translation") {
    CHECK(kept("Tom &amp; Jerry&nbsp;run &#233;t&eacute; &#xE9; &#0; &#xD800; &#99999999; &unknown; &amp") ==
          "Tom & Jerry run été é &#0; &#xD800; &#99999999; &unknown; &amp");
    CHECK(take_out_asides(utf8_decode("Tom &amp; Jerry")).html);
    CHECK(take_out_asides(utf8_decode("<b>Tom</b>")).html);
    CHECK_FALSE(take_out_asides(utf8_decode("**Tom** & Jerry 🐕")).html);
    // HTML in, HTML out: the translation's own "&", "<", ">" are written as references, the tags as they were.
    const TakenOut html = take_out_asides(utf8_decode("<b>Tom &amp; Jerry</b> &lt;3"));
    CHECK(put_back_asides("Tom & Jerry <3", html.asides, html.words, html.html) == "<b>Tom &amp; Jerry</b> &lt;3");
    CHECK(round_trip("**Salt & pepper** here.", "Salz & Pfeffer hier.") == "**Salz & Pfeffer** hier.");
}

TEST_CASE("asides: a tag or mark on a word knows the word; pictographs, code and marks between spaces stand apart") {
    using Role = std::tuple<std::string, bool, bool, int>;  // text, opens, closes, word
    auto roles = [](const std::string& text) {
        std::vector<Role> out;
        for (const Aside& a : take_out_asides(utf8_decode(text)).asides) out.emplace_back(a.text, a.opens, a.closes, a.word);
        return out;
    };
    CHECK(roles("<p>A <b>red car</b>, (<i>x</i>) goes.</p>") ==
          std::vector<Role>{{"<p>", true, false, 0}, {"<b>", true, false, 1}, {"</b>", false, true, 2},
                            {"<i>", true, false, 3}, {"</i>", false, true, 3},
                            {"</p>", false, true, -1}});  // after the final punctuation: the sentence's
    CHECK(roles("**Two dogs** run in [the park](https://x.org) now") ==
          std::vector<Role>{{"**", true, false, 0}, {"**", false, true, 1}, {"[", true, false, 4},
                            {"](https://x.org)", false, true, 5}});
    CHECK(roles("A dog ended <b>here</b>") == std::vector<Role>{{"<b>", true, false, 3}, {"</b>", false, true, 3}});
    CHECK(roles("- A dog 🐕 runs `fast` <br> now.") ==
          std::vector<Role>{{"-", false, false, -1}, {"🐕", false, false, -1}, {"`fast`", false, false, -1},
                            {"<br>", false, false, -1}});
}

namespace {

// The source's asides put back into `translation` with source word k aligned to translation words
// alignment[k].first..alignment[k].second (-1: none).
std::string aligned(const std::string& source, const std::string& translation,
                    const std::vector<std::pair<int, int>>& alignment) {
    const TakenOut t = take_out_asides(utf8_decode(source));
    REQUIRE(static_cast<int>(alignment.size()) == t.words);
    WordAlignment a;
    for (const auto& [first, last] : alignment) {
        a.first.push_back(first);
        a.last.push_back(last);
    }
    return put_back_asides(translation, t.asides, t.words, t.html, &a);
}

}  // namespace

TEST_CASE("asides: a tag on words goes around the translation words aligned with them") {
    // "A red car drives." -> "Une voiture rouge roule.": the pair goes around both words, in their new order
    CHECK(aligned("A <b>red car</b> drives.", "Une voiture rouge roule.", {{0, 0}, {2, 2}, {1, 1}, {3, 3}}) ==
          "Une <b>voiture rouge</b> roule.");
    CHECK(aligned("A man is reading a *newspaper* on a bench.", "Ein Mann liest Zeitung auf einer Bank.",
                  {{0, 0}, {1, 1}, {2, 2}, {2, 2}, {-1, -1}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}) ==
          "Ein Mann liest *Zeitung* auf einer Bank.");
    // one source word, two translation words; the last word keeps its period outside
    CHECK(aligned("Two men <i>play</i> soccer.", "Zwei Männer spielen Fußball.", {{0, 0}, {1, 1}, {2, 2}, {3, 3}}) ==
          "Zwei Männer <i>spielen</i> Fußball.");
    CHECK(aligned("<b>Children</b> swim.", "Des enfants nagent.", {{0, 1}, {2, 2}}) == "<b>Des enfants</b> nagent.");
    CHECK(aligned("A dog runs on the <i>beach</i>.", "Ein Hund läuft am Strand.",
                  {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {3, 3}, {4, 4}}) == "Ein Hund läuft am <i>Strand</i>.");
    // a closer that touched a comma in the source touches only its word: the comma follows it
    CHECK(aligned("A <b>man</b>, smiling, sits.", "Un homme, souriant, est assis.", {{0, 0}, {1, 1}, {2, 2}, {3, 4}}) ==
          "Un <b>homme</b>, souriant, est assis.");
    CHECK(aligned("The <b>water</b>, deep and cold.", "L'eau profonde et froide.", {{0, 0}, {0, 0}, {1, 1}, {2, 2}, {3, 3}}) ==
          "<b>L'eau</b> profonde et froide.");
    // a pair around the whole sentence stays around it, whatever the first and last words align with
    CHECK(aligned("<p>A dog runs.</p>", "Ein Hund läuft.", {{1, 1}, {0, 0}, {2, 2}}) == "<p>Ein Hund läuft.</p>");
    CHECK(aligned("_A dog runs_.", "Ein Hund läuft.", {{1, 1}, {0, 0}, {2, 2}}) == "_Ein Hund läuft_.");
    // nothing of the span aligned ("cowboy hat" -> "Cowboyhut"): at its share, around a word, not around nothing
    const std::string unaligned = aligned("A cowboy <b>hat</b> falls.", "Ein Cowboyhut fällt.", {{0, 0}, {1, 1}, {-1, -1}, {2, 2}});
    CHECK(unaligned.find("<b> ") == std::string::npos);
    CHECK(unaligned.find("<b>") + 3 < unaligned.find("</b>"));
    // two pairs whose words fall in the other order: the second holds the word after the first's
    CHECK(aligned("**big** <i>dog</i> runs fast", "Hund groß läuft schnell", {{1, 1}, {0, 0}, {2, 2}, {3, 3}}) ==
          "Hund **groß** <i>läuft</i> schnell");
    // no word left for the second pair: all at their share, an empty pair touching what is before it
    CHECK(aligned("the **a** <i>house</i>.", "das Hauses.", {{0, 0}, {1, 1}, {1, 1}}) == "das **Hauses**<i></i>.");
    // an alignment of another length is not this source's: the share it is
    const TakenOut t = take_out_asides(utf8_decode("A <b>red car</b> drives."));
    const WordAlignment wrong{{0, 1}, {0, 1}};
    CHECK(put_back_asides("Une voiture rouge roule.", t.asides, t.words, false, &wrong) ==
          put_back_asides("Une voiture rouge roule.", t.asides, t.words));
}
