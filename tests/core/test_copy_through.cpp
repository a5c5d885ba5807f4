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

// What mask_copy_spans would give for these spans (one placeholder a span, none of them names).
MaskedText masked_of(std::vector<std::string> originals, std::vector<std::string> source_words,
                     std::vector<std::string> target_words) {
    MaskedText m;
    m.originals = std::move(originals);
    m.source_words = std::move(source_words);
    m.target_words = std::move(target_words);
    return m;
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
    MaskedText m = masked_of({"25", "www.x.org"}, {"horse", "ball"}, {"Pferd", "Ball"});
    // Inflected ("Pferdes"), an article before it dropped; the second found after the first.
    CHECK(restore_copy_spans("Ein Hund kostet ein Pferdes Dollar bei Ball.", m, false) ==
          "Ein Hund kostet 25 Dollar bei www.x.org.");
    // The model dropped the second placeholder: the span goes before the final punctuation.
    CHECK(restore_copy_spans("Ein Pferd läuft.", m, false) == "25 läuft www.x.org.");
    // A word that only starts like the placeholder is not it ("Ballerina" is 5 letters longer than "Ball").
    CHECK(restore_copy_spans("Die Ballerina und das Pferd.", m, false) == "Die Ballerina und 25 www.x.org.");
    // Lowercased (tokenized BLEU text).
    MaskedText url = masked_of({"WWW.X.ORG"}, {"dog"}, {"Hund"});
    CHECK(restore_copy_spans("ein hund .", url, true) == "www.x.org .");
    url.whole = true;
    CHECK(restore_copy_spans("Ein Hund.", url, false) == "WWW.X.ORG");

    std::vector<std::string> tokens = {"Ein", "Pfer@@", "des", "und", "Ball", "<eos>"};
    restore_copy_tokens(tokens, m.target_words, m.originals);
    CHECK(tokens == std::vector<std::string>{"Ein", "25", "des", "und", "www.x.org", "<eos>"});
    // A placeholder the vocabulary holds in short pieces: the span on the first, still one word for the views.
    tokens = {"mit", "Ob@@", "am@@", "a", "und", "O@@", "b", "<eos>"};
    restore_copy_tokens(tokens, {"Obama"}, {"Carlos"});
    CHECK(tokens == std::vector<std::string>{"mit", "Carlos@@", "@@", "", "und", "O@@", "b", "<eos>"});
}

namespace {

std::vector<std::string> names_of(const std::string& text, const Vocab& vocab, Lang lang = Lang::en,
                                  const NonbreakingPrefixes* prefixes = nullptr) {
    std::vector<std::string> out;
    for (const CopySpan& s : find_name_spans(text, lang, vocab, prefixes))
        out.push_back(text.substr(s.begin, s.end - s.begin));
    return out;
}

}  // namespace

TEST_CASE("copy-through finds names: capitalized words inside a sentence that the vocabulary lacks") {
    using V = std::vector<std::string>;
    const Vocab en = vocab_of({"Two", "two", "Frisbee", "New", "York", "Grand", "A", "a", "mike", "Professor"});
    CHECK(names_of("Two children are playing with Thomas on the beach.", en) == V{"Thomas"});
    CHECK(names_of("A trip to New York with a Frisbee.", en) == V{});  // the model's own words
    CHECK(names_of("A view of the Grand Canyon.", en) == V{"Grand Canyon"});  // one run, one span
    CHECK(names_of("A view of the Grand  Canyon.", en) == V{"Grand  Canyon"});  // where an emoji was taken out
    CHECK(names_of("A  Boston  Terrier runs.", en) == V{});
    CHECK(names_of("They listen to Professor Martin and Anna.", en) == V{"Professor Martin", "Anna"});
    // A sentence's first word is capitalized whatever it is: a name only as the first of a run of names that is no
    // word in lowercase, joined by "and" to another name, or before a verb of one subject in the text's language.
    CHECK(names_of("Maria and Jonas are walking. Laura et Tom marchent.", en) == V{"Maria", "Jonas", "Laura", "Tom"});
    CHECK(names_of("Maria is walking her dog. Jonas was here. Lena has a cat.", en) == V{"Maria", "Jonas", "Lena"});
    CHECK(names_of("Marie est assise. Paul a un vélo. Lena était là.", en, Lang::fr) == V{"Marie", "Paul", "Lena"});
    CHECK(names_of("Amara est assise. Kofi a un vélo.", en) == V{});
    CHECK(names_of("Amara is walking.", en, Lang::fr) == V{});
    CHECK(names_of("Amara walks her dog. Amara's dog runs. Amara, come!", en) == V{});
    CHECK(names_of("Sailors are walking. Gardening is fun. Precision is key. Somebody is there. Everyone is here.", en) ==
          V{});
    CHECK(names_of("Two is a number.", en) == V{});  // a word of the vocabulary
    // A common given name is a name wherever it stands capitalized, though the vocabulary hold it: captions have
    // "John Deere", and a model that learned "John" there garbles "John is playing guitar".
    const Vocab with_names = vocab_of({"John", "Mary", "Tom", "Brian", "A", "a", "bob", "Deere", "James", "Star", "David",
                                       "Klaus", "Patrick", "Day", "They", "Pizza", "Kennedy", "He"});
    CHECK(names_of("John is playing guitar. Tom throws a ball to Mary.", with_names) == V{"John", "Tom", "Mary"});
    CHECK(names_of("Bob rides a bike. Brian rides with him.", with_names) == V{"Bob", "Brian"});
    // With a name the model knows, it is the model's: "John Deere", not "John Smith".
    CHECK(names_of("A man on a John Deere tractor, a man named John Deere, John Smith.", with_names) ==
          V{"John Smith"});
    CHECK(names_of("John Deere tractors are green.", with_names) == V{});
    CHECK(names_of("Amara and Mary are walking.", with_names) == V{"Amara", "Mary"});
    CHECK(names_of("Pierre joue avec Marie.", with_names, Lang::fr) == V{"Pierre", "Marie"});
    CHECK(names_of("A john in a tom costume.", with_names) == V{});  // lowercase: not a name
    // Not alone: part of a longer name, a title or a shop's name.
    CHECK(names_of("LeBron James passes. A Star of David. Mrs. Klaus waves. St. Patrick's Day.", with_names) == V{});
    CHECK(names_of("They eat at John's Pizza. John F. Kennedy spoke. A man named John F.", with_names) == V{});
    CHECK(names_of("He waved. John laughed at John's dog, with Mary.", with_names) == V{"John", "John", "Mary"});
    // German capitalizes every noun: a name is a given name, with the unknown capitalized words after it, not after
    // an article; "Bob" alone is a bobsleigh.
    const Vocab de = vocab_of({"Ein", "Mann", "Hund", "Park"});
    CHECK(names_of("Anna und Peter gehen im Park spazieren.", de, Lang::de) == V{"Anna", "Peter"});
    CHECK(names_of("Ein Mann namens Peter Schmidt liest. Der Hund rennt auf Emma zu.", de, Lang::de) ==
          V{"Peter Schmidt", "Emma"});
    CHECK(names_of("Ein Mann im Park mit Zoë, Kindern und Hunden.", de, Lang::de) == V{});
    CHECK(names_of("Zwei Männer fahren Bob. Der Max ist groß. Ein Max.", de, Lang::de) == V{});
    CHECK(names_of("Skateboarders and Frisbee players.", en) == V{});
    CHECK(names_of("Skateboarders are everywhere.", en) == V{});
    CHECK(names_of("Jonas Berg is boxing.", en) == V{"Jonas Berg"});
    // A known word first makes the run a title's ("mike" is a word of this vocabulary), unless it is a given name;
    // an article does not.
    CHECK(names_of("Mike Tyson is boxing.", en) == V{"Mike Tyson"});
    CHECK(names_of("Happy Tyson is boxing.", vocab_of({"happy"})) == V{});
    CHECK(names_of("Military Families are marching.", vocab_of({"military"})) == V{});
    CHECK(names_of("The Dali Lama waves.", vocab_of({"The", "the"})) == V{"Dali Lama"});
    CHECK(names_of("Two Frisbee players.", en) == V{});
    // Things with "a" before them, and adjectives of nations and days before a word, are the model's to translate;
    // a name that ends like one is a name where no word follows.
    CHECK(names_of("A Boston Terrier runs past a Hummer.", en) == V{});
    CHECK(names_of("Men in a Mexican setting, Hawaiian shirts, Australian Shepherd dogs, on Saturday afternoon.", en) ==
          V{});
    CHECK(names_of("She plays with Morgan.", en) == V{"Morgan"});
    CHECK(names_of("Un homme au Brésil, un autre en France, des amis aux Bahamas, avec Pierre.", en) == V{"Pierre"});
    CHECK(names_of("He waved. Amara laughed! \"Kofi?\" (Noor) … Yara: Zaid", en) == V{});
    // Quotes, glued or not, are no letters of a name.
    CHECK(names_of("He talks to «Carlos» and „Emma“ with ‹Lena›, Paul—Jonas.", en) ==
          V{"Carlos", "Emma", "Lena", "Paul", "Jonas"});
    CHECK(names_of("«Carlos and Emma are here.»", en) == V{"Carlos", "Emma"});  // a sentence's start
    // Letters beyond ASCII belong to the word; other shapes are not names.
    CHECK(names_of("A dance with José and Zoë.", en) == V{"José", "Zoë"});
    CHECK(names_of("Two NASA engineers, a McDonald sign, gate B12, an iPhone and Ab3.", en) == V{});
    CHECK(names_of("", en) == V{});
}

TEST_CASE("copy-through takes a title that keeps its period with the name after it") {
    using V = std::vector<std::string>;
    const NonbreakingPrefixes prefixes = NonbreakingPrefixes::parse("Dr\nMrs\nSt\nProf\nA\nF\nM\nNo #NUMERIC_ONLY#\n");
    const Vocab en = vocab_of({"A", "a", "man", "Head", "Brown", "Patrick", "Then", "John"});
    // Without the title, "Dr" was a name of its own and "Smith", after a period, a sentence's first word.
    CHECK(names_of("A man talks to Dr. Smith.", en) == V{"Dr"});
    CHECK(names_of("A man talks to Dr. Smith.", en, Lang::en, &prefixes) == V{"Dr. Smith"});
    CHECK(names_of("Dr. Smith talks to a man.", en, Lang::en, &prefixes) == V{"Dr. Smith"});
    // The name is the title's whatever the vocabulary holds; the unknown capitalized words after it go with it.
    CHECK(names_of("A man talks to Dr. Brown and Prof. Anna Berg Head.", en, Lang::en, &prefixes) ==
          V{"Dr. Brown", "Prof. Anna Berg"});
    CHECK(names_of("Mrs.  Klaus waves. People at St. Patrick's party.", en, Lang::en, &prefixes) ==
          V{"Mrs.  Klaus", "St. Patrick"});
    CHECK(names_of("Ein Mann spricht mit Dr. Müller im Park.", en, Lang::de, &prefixes) == V{"Dr. Müller"});
    // A single letter: before a word the vocabulary lacks, and not after a capitalized word (an initial there).
    CHECK(names_of("Un homme parle avec M. Okafor. M. Dupont joue.", en, Lang::fr, &prefixes) ==
          V{"M. Okafor", "M. Dupont"});
    CHECK(names_of("He got an A. Then he left.", en, Lang::en, &prefixes) == V{});
    CHECK(names_of("A man and John F. Kennedy.", en, Lang::en, &prefixes) == V{});  // as without titles
    CHECK(names_of("A J.P. Morgan sign, A.M. Okafor.", en, Lang::en, &prefixes) == names_of("A J.P. Morgan sign, A.M. Okafor.", en));
    // Not a title: a numeric-only prefix, a prefix the list lacks, a title before no capitalized word or with no
    // space after its period: the rules without titles, as above.
    CHECK(names_of("A man with No. Seven and Col. Smith.", en, Lang::en, &prefixes) == V{"No", "Seven", "Col"});
    CHECK(names_of("A man talks to the Dr. about a Dr.Smith card, Dr. who?", en, Lang::en, &prefixes) ==
          V{"Dr", "Dr"});
}

TEST_CASE("copy-through masks names with name placeholders, for English and French sources") {
    const Vocab en = vocab_of({"dog", "horse", "a", "A", "man", "Hund", "Pferd"});
    MaskedText m = mask_copy_spans("A man named Peter waves at Sophie Berg from 25 meters.", Lang::en, Lang::de, en, en,
                                   true);
    CHECK(m.text == "A man named Obama waves at Seattle from dog meters.");
    CHECK(m.originals == std::vector<std::string>{"Peter", "Sophie Berg", "25"});
    CHECK(m.target_words == std::vector<std::string>{"Obama", "Seattle", "Hund"});
    CHECK(m.names == std::vector<bool>{true, true, false});
    CHECK(m.source_articles == std::vector<bool>{false, false, false});
    CHECK(mask_copy_spans("The players of the Saints.", Lang::en, Lang::de, en, en, true).source_articles ==
          std::vector<bool>{true});
    CHECK(mask_copy_spans("Des percussionnistes de l'Oregon.", Lang::fr, Lang::en, en, en, true).source_articles ==
          std::vector<bool>{true});
    // Names stay the model's where not asked for (a lowercasing model); where the text holds the placeholder already,
    // the next one is taken.
    CHECK(mask_copy_spans("A man named Peter.", Lang::en, Lang::de, en, en, false).text == "A man named Peter.");
    CHECK(mask_copy_spans("Ein Mann namens Peter.", Lang::de, Lang::en, en, en, true).text == "Ein Mann namens Obama.");
    CHECK(mask_copy_spans("A man named Peter meets Obama.", Lang::en, Lang::de, en, en, true).text ==
          "A man named Seattle meets Miami.");
    CHECK(mask_copy_spans("Un homme nommé Pierre.", Lang::fr, Lang::en, en, en, true).text == "Un homme nommé Obama.");
    // A model's own placeholders, in their order.
    const std::vector<std::string> own = {"Elmo", "Europe"};
    m = mask_copy_spans("Pierre danse avec Sophie et Paul.", Lang::fr, Lang::en, en, en, true, own);
    CHECK(m.text == "Elmo danse avec Europe et Paul.");  // a third name stays the model's
    CHECK(m.target_words == std::vector<std::string>{"Elmo", "Europe"});
    CHECK(mask_copy_spans("Elmo danse avec Sophie.", Lang::fr, Lang::en, en, en, true, own).text ==
          "Elmo danse avec Europe.");
    // A name inside a URL is the URL's.
    m = mask_copy_spans("See https://example.org/Maria now.", Lang::en, Lang::de, en, en, true);
    CHECK(m.originals == std::vector<std::string>{"https://example.org/Maria"});
    CHECK(m.names == std::vector<bool>{false});
    // A text that is one name is not whole: a name is in a sentence.
    CHECK_FALSE(mask_copy_spans("x Maria", Lang::en, Lang::de, en, en, true).whole);
}

TEST_CASE("copy-through puts names back with their articles and French elisions dropped, and drops repeats") {
    MaskedText m = masked_of({"Lukas"}, {"Obama"}, {"Obama"});
    m.names = {true};
    CHECK(restore_copy_spans("Der Junge fährt mit Obama Obama Fahrrad.", m, false) == "Der Junge fährt mit Lukas Fahrrad.");
    CHECK(restore_copy_spans("Zwei Männer vor Obama „Obama“.", m, false) == "Zwei Männer vor Lukas.");
    CHECK(restore_copy_spans("Zwei Männer vor Obama \"Obamas\" und Obama.", m, false) ==
          "Zwei Männer vor Lukas und.");
    CHECK(restore_copy_spans("Ein Baby schläft in den Armen des Obamas.", m, false) ==
          "Ein Baby schläft in den Armen Lukas.");
    CHECK(restore_copy_spans("L'Obama joue de la guitare.", m, false) == "Lukas joue de la guitare.");
    // Quotes around it are no letters of the word.
    CHECK(restore_copy_spans("Ein Boot mit der Aufschrift „Obama“.", m, false) == "Ein Boot mit der Aufschrift „Lukas“.");
    // The article stays where the source gave the name one ("the Saints"), but an elided "l'" never does.
    m.source_articles = {true};
    CHECK(restore_copy_spans("Ein Pitcher für die Obama.", m, false) == "Ein Pitcher für die Lukas.");
    CHECK(restore_copy_spans("L'Obama lors d'une soirée.", m, false) == "Lukas lors d'une soirée.");
    m.source_articles = {false};
    CHECK(restore_copy_spans("Les rues d'Obama.", m, false) == "Les rues de Lukas.");
    CHECK(restore_copy_spans("l' obama joue .", m, true) == "lukas joue .");
    m.originals = {"Anna"};
    CHECK(restore_copy_spans("Un bébé dans les bras d'Obama.", m, false) == "Un bébé dans les bras d'Anna.");
    CHECK(restore_copy_spans("les bras d' obama .", m, true) == "les bras d'anna .");
    // Only a name's elision goes: a noun placeholder keeps what is before it ("l'" is no article of a number).
    const MaskedText noun = masked_of({"25"}, {"dog"}, {"chien"});
    CHECK(restore_copy_spans("Il voit l'chien.", noun, false) == "Il voit l'25.");
    CHECK(restore_copy_spans("il voit l' chien .", noun, true) == "il voit 25 .");
}

TEST_CASE("copy-through puts a name after a French verb of naming without \"de\", and an English \"an\" agrees") {
    MaskedText m = masked_of({"John"}, {"Obama"}, {"Obama"});
    m.names = {true};
    m.source_articles = {false};
    CHECK(restore_copy_spans("Un homme nommé d'Obama lit un livre.", m, false) == "Un homme nommé John lit un livre.");
    CHECK(restore_copy_spans("Une femme prénommée d'Obama.", m, false) == "Une femme prénommée John.");
    CHECK(restore_copy_spans("Des chiens appelés d'Obama.", m, false) == "Des chiens appelés John.");
    CHECK(restore_copy_spans("un homme nommé d' obama .", m, true) == "un homme nommé john .");
    CHECK(restore_copy_spans("La maison d'Obama.", m, false) == "La maison de John.");  // no naming: "de" stays
    // "an" kept because the source had an article ("des Raiders").
    m = masked_of({"Raiders"}, {"Obama"}, {"Obama"});
    m.names = {true};
    m.source_articles = {true};
    CHECK(restore_copy_spans("A woman in an Obama outfit.", m, false) == "A woman in a Raiders outfit.");
    CHECK(restore_copy_spans("An Obama outfit.", m, false) == "A Raiders outfit.");
    m.originals = {"Anna"};
    CHECK(restore_copy_spans("A woman in an Obama outfit.", m, false) == "A woman in an Anna outfit.");
    m.originals = {"Hawaiian"};
    CHECK(restore_copy_spans("An Obama shirt.", m, false) == "An Hawaiian shirt.");
}

TEST_CASE("copy-through tells whether a translation writes each name placeholder back once, where restore finds it") {
    MaskedText m = masked_of({"Sarah", "25", "Tom"}, {"Obama", "dog", "Boston"}, {"Obama", "Hund", "Boston"});
    m.names = {true, false, true};
    CHECK(names_written_back("Obama und Boston sehen einen Hund.", m) == false);  // Hund after Boston: not found there
    CHECK(names_written_back("Obama sieht einen Hund mit Boston.", m));
    CHECK(names_written_back("Obamas Hund sieht Bostons.", m));  // with an ending
    CHECK_FALSE(names_written_back("Ein Hund sieht Boston.", m));  // Obama dropped
    CHECK_FALSE(names_written_back("Obama sieht einen Hund mit Boston Boston.", m));  // written twice
    CHECK_FALSE(names_written_back("Obama Obama sieht einen Hund mit Boston.", m));
    CHECK_FALSE(names_written_back("Boston sieht Obama und einen Hund.", m));  // Boston before Obama
    CHECK_FALSE(names_written_back("Obama sieht Boston.", m));  // the number's span goes at the end, Boston with it
    // Only names are asked for: a number's placeholder left out restores at the end.
    m.names = {false, false, false};
    CHECK(names_written_back("Sie sehen sich.", m));
    CHECK(names_written_back("Sie sehen sich.", MaskedText{}));
    // A word that only begins like the placeholder is no placeholder ("Bostonians" is 5 letters longer).
    m = masked_of({"Tom"}, {"Boston"}, {"Boston"});
    m.names = {true};
    CHECK_FALSE(names_written_back("Die Bostonians spielen.", m));
    CHECK(names_written_back("Die Bostonians spielen mit Boston.", m));
}
