// Copy-through (translate/copy_through.h): which spans are found, how they are masked with placeholders, and how a
// translation gets them back.
#include <doctest/doctest.h>

#include "text/vocab.h"
#include "translate/copy_through.h"

#include <string>
#include <vector>

using namespace attend;

namespace {

std::vector<std::string> spans_of(const std::string& text) {
    std::vector<std::string> out;
    for (const CopySpan& s : find_copy_spans(text)) out.push_back(text.substr(s.begin, s.end - s.begin));
    return out;
}

Vocab vocab_of(const std::vector<std::string>& words) {
    std::vector<std::string> tokens = {"<unk>", "<pad>", "<bos>", "<eos>"};
    tokens.insert(tokens.end(), words.begin(), words.end());
    return Vocab::from_id_order(tokens);
}

}  // namespace

TEST_CASE("copy-through finds URLs, e-mail addresses and numbers, and leaves words alone") {
    using V = std::vector<std::string>;
    CHECK(spans_of("Visit https://www.example.org/path?id=42&lang=en for details.") ==
          V{"https://www.example.org/path?id=42&lang=en"});
    CHECK(spans_of("See www.example.com.") == V{"www.example.com"});
    CHECK(spans_of("(ftp://files.example.net/pub/readme.txt)") == V{"ftp://files.example.net/pub/readme.txt"});
    CHECK(spans_of("Write to john.doe@example.co.uk.") == V{"john.doe@example.co.uk"});
    CHECK(spans_of("not@an-address and a@b") == V{});
    CHECK(spans_of("It costs $19.99, the drink €3.50 and the house £1,250,000.") == V{"19.99", "3.50", "1,250,000"});
    CHECK(spans_of("On 2024-03-15 at 14:00, 12/25/2023.") == V{"2024-03-15", "14:00", "12/25/2023"});
    CHECK(spans_of("The 3rd, 21st and 100th visitors.") == V{"3rd", "21st", "100th"});
    CHECK(spans_of("It is -5°C, COVID-19, room 101.") == V{"5", "19", "101"});
    CHECK(spans_of("1 2 3 4 5") == V{"1 2 3 4 5"});  // one run, one placeholder
    // A lone digit counting what follows is left to the model; inside words digits are not numbers.
    CHECK(spans_of("2 blond girls and 3 Jungen") == V{});
    CHECK(spans_of("gate B12, building 7B, die 20ern") == V{});
    CHECK(spans_of("at 5 p.m.") == V{});
    CHECK(spans_of("floor 3, number 7.") == V{"3", "7"});
    CHECK(spans_of("") == V{});
}

TEST_CASE("copy-through masks spans with placeholders both vocabularies hold, avoiding words of the text") {
    const Vocab en = vocab_of({"dog", "horse", "ball", "the", "a"}), de = vocab_of({"Hund", "Pferd", "Ball"});
    MaskedText m = mask_copy_spans("A dog costs 25 dollars at www.x.org.", Lang::en, Lang::de, en, de);
    CHECK(m.text == "A dog costs horse dollars at ball.");  // "dog" is in the text: the next placeholders
    CHECK(m.originals == std::vector<std::string>{"25", "www.x.org"});
    CHECK(m.source_words == std::vector<std::string>{"horse", "ball"});
    CHECK(m.target_words == std::vector<std::string>{"Pferd", "Ball"});
    CHECK_FALSE(m.whole);
    // Nor a word that starts with one: "dogs" would come out as "Hunde", and "Hunde" taken for the placeholder's.
    m = mask_copy_spans("Two dogs play with 25 balls.", Lang::en, Lang::de, en, de);
    CHECK(m.text == "Two dogs play with horse balls.");
    m = mask_copy_spans("Two Horses and 25 dogs.", Lang::en, Lang::de, en, de);
    CHECK(m.text == "Two Horses and ball dogs.");
    m = mask_copy_spans("Two Horses, 25 dogs, 3 Balloons.", Lang::en, Lang::de, en, de);
    CHECK(m.originals.empty());  // no placeholder left that no word of the text starts with: the number stays
    // Placeholders the vocabularies lack are skipped; no span, no change.
    const Vocab only_ball = vocab_of({"ball"});
    m = mask_copy_spans("Call 555-1234.", Lang::en, Lang::de, only_ball, de);
    CHECK(m.text == "Call ball.");
    m = mask_copy_spans("Nothing to copy.", Lang::en, Lang::de, en, de);
    CHECK(m.text == "Nothing to copy.");
    CHECK(m.originals.empty());
    m = mask_copy_spans("  https://example.com ", Lang::en, Lang::de, en, de);
    CHECK(m.whole);
}

TEST_CASE("copy-through puts each span where its placeholder's translation is, or before the final punctuation") {
    MaskedText m;
    m.originals = {"25", "www.x.org"};
    m.source_words = {"horse", "ball"};
    m.target_words = {"Pferd", "Ball"};
    // Inflected ("Pferdes"), an article before it dropped; the second found after the first.
    CHECK(restore_copy_spans("Ein Hund kostet ein Pferdes Dollar bei Ball.", m, false) ==
          "Ein Hund kostet 25 Dollar bei www.x.org.");
    // The model dropped the second placeholder: the span goes before the final punctuation.
    CHECK(restore_copy_spans("Ein Pferd läuft.", m, false) == "25 läuft www.x.org.");
    // A word that only starts like the placeholder is not it ("Ballerina" is 5 letters longer than "Ball").
    CHECK(restore_copy_spans("Die Ballerina und das Pferd.", m, false) == "Die Ballerina und 25 www.x.org.");
    // Lowercased (tokenized BLEU text).
    MaskedText url;
    url.originals = {"WWW.X.ORG"};
    url.source_words = {"dog"};
    url.target_words = {"Hund"};
    CHECK(restore_copy_spans("ein hund .", url, true) == "www.x.org .");
    url.whole = true;
    CHECK(restore_copy_spans("Ein Hund.", url, false) == "WWW.X.ORG");

    std::vector<std::string> tokens = {"Ein", "Pfer@@", "des", "und", "Ball", "<eos>"};
    restore_copy_tokens(tokens, m.target_words, m.originals);
    CHECK(tokens == std::vector<std::string>{"Ein", "25", "des", "und", "www.x.org", "<eos>"});
}
