#include "translate/copy_through.h"

#include "text/vocab.h"
#include "text/word_lists.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <utility>

namespace attend {

namespace {

bool ascii_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return c >= '0' && c <= '9'; }
// Letters for word boundaries: ASCII letters and digits, and every byte of a multi-byte UTF-8 character (ä, é).
bool word_byte(char c) { return ascii_alnum(c) || (static_cast<unsigned char>(c) & 0x80); }

// Marks of more than one byte that end or begin a word as a space does: quotes, dashes, the ellipsis, NBSP.
bool multibyte_mark(std::string_view ch) {
    for (std::string_view mark : {"„", "“", "”", "‚", "‘", "’", "«", "»", "‹", "›", "–", "—", "…", "\u00a0"})
        if (ch == mark) return true;
    return false;
}

// The UTF-8 character that starts at `i` (a lone byte where the text is cut).
std::string_view char_at(std::string_view t, std::size_t i) {
    std::size_t j = i + 1;
    while (j < t.size() && (static_cast<unsigned char>(t[j]) & 0xC0) == 0x80) ++j;
    return t.substr(i, j - i);
}

// The UTF-8 character that ends right before `i` (empty at the start).
std::string_view char_before(std::string_view t, std::size_t i) {
    std::size_t b = i;
    while (b > 0 && (static_cast<unsigned char>(t[b - 1]) & 0xC0) == 0x80) --b;
    return b > 0 ? t.substr(b - 1, i - b + 1) : t.substr(0, 0);
}

// Whether a letter or digit ends right before `i` (a word goes on there).
bool letter_before(std::string_view t, std::size_t i) {
    const std::string_view ch = char_before(t, i);
    if (ch.empty()) return false;
    return ch.size() == 1 ? ascii_alnum(ch[0]) : !multibyte_mark(ch);
}

// Where the word that goes on at `i` ends: at an ASCII non-letter or a mark ("Hund“" ends before "“").
std::size_t word_end_at(std::string_view t, std::size_t i) {
    while (i < t.size()) {
        if (!(static_cast<unsigned char>(t[i]) & 0x80)) {
            if (!ascii_alnum(t[i])) break;
            ++i;
        } else {
            const std::string_view ch = char_at(t, i);
            if (multibyte_mark(ch)) break;
            i += ch.size();
        }
    }
    return i;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool starts_with_ci(std::string_view text, std::size_t at, std::string_view prefix) {
    if (text.size() - at < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[at + i])) != prefix[i]) return false;
    return true;
}

// Where a URL that starts at `at` ends: at white space or a quote/bracket, less trailing punctuation.
std::size_t url_end(std::string_view t, std::size_t at) {
    std::size_t end = at;
    while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end])) && t[end] != '"' && t[end] != '<' &&
           t[end] != '>')
        ++end;
    while (end > at && std::string_view(".,;:!?)]'").find(t[end - 1]) != std::string_view::npos) --end;
    return end;
}

bool email_local(char c) { return ascii_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'; }

// An e-mail address starting at `at` (local@domain.tld), or 0.
std::size_t email_end(std::string_view t, std::size_t at) {
    std::size_t i = at;
    while (i < t.size() && email_local(t[i])) ++i;
    if (i == at || i >= t.size() || t[i] != '@') return 0;
    std::size_t j = i + 1;
    while (j < t.size() && (ascii_alnum(t[j]) || t[j] == '-' || t[j] == '.')) ++j;
    while (j > i + 1 && t[j - 1] == '.') --j;  // the sentence's full stop
    const std::string_view domain = t.substr(i + 1, j - i - 1);
    if (domain.find('.') == std::string_view::npos || !std::isalpha(static_cast<unsigned char>(t[j - 1]))) return 0;
    return j;
}

// A number starting at `at`: digits with single inner separators (3.14, 1,250,000, 10:45, 2024-03-15, 12/25/2023).
std::size_t number_end(std::string_view t, std::size_t at) {
    std::size_t i = at;
    while (i < t.size()) {
        if (digit(t[i])) {
            ++i;
        } else if (std::string_view(".,:/-").find(t[i]) != std::string_view::npos && i + 1 < t.size() &&
                   digit(t[i + 1])) {
            i += 2;
        } else {
            break;
        }
    }
    return i;
}

// Placeholders: common nouns of image captions, one per span, the same object in each language.
constexpr std::array<std::array<const char*, 3>, 8> kPlaceholders = {{
    {"dog", "Hund", "chien"},
    {"horse", "Pferd", "cheval"},
    {"ball", "Ball", "ballon"},
    {"boat", "Boot", "bateau"},
    {"car", "Auto", "voiture"},
    {"tree", "Baum", "arbre"},
    {"house", "Haus", "maison"},
    {"hat", "Hut", "chapeau"},
}};

const char* placeholder(std::size_t i, Lang lang) { return kPlaceholders[i][static_cast<int>(lang)]; }

// Articles that go with a placeholder noun and not with a number or a URL.
bool article(const std::string& word) {
    return in_word_lists(lower(word), {"en/articles", "de/articles", "fr/articles"});
}

// A capitalized word starting at `at` (an ASCII capital, then lowercase letters, "José" too): where it ends, or 0.
// "NASA", "McDonald", "B12" are not of this shape.
// Quotes and dashes end it ("«Carlos»").
std::size_t capitalized_word_end(std::string_view t, std::size_t at) {
    if (at >= t.size() || !std::isupper(static_cast<unsigned char>(t[at]))) return 0;
    const std::size_t end = word_end_at(t, at);
    for (std::size_t i = at + 1; i < end; ++i)
        if (!(static_cast<unsigned char>(t[i]) & 0x80) && !std::islower(static_cast<unsigned char>(t[i]))) return 0;
    return end - at < 2 ? 0 : end;
}

// Whether `at` begins a sentence: nothing before it but spaces, opening quotes and brackets, back to the text's
// start or a sentence's end (. ! ? : or an ellipsis).
bool sentence_start(std::string_view t, std::size_t at) {
    std::size_t i = at;
    while (i > 0) {
        const unsigned char c = static_cast<unsigned char>(t[i - 1]);
        if (std::isspace(c) || c == '"' || c == '\'' || c == '(' || c == '[') {
            --i;
        } else if (c & 0x80) {  // a multi-byte character: an opening quote or an ellipsis is a start; a letter is not
            const std::string_view ch = char_before(t, i);
            if (ch == "…") return true;
            if (ch != "«" && ch != "“" && ch != "„" && ch != "‘" && ch != "¿" && ch != "¡" && ch != "\u00a0") return false;
            i -= ch.size();
        } else {
            return c == '.' || c == '!' || c == '?' || c == ':';
        }
    }
    return true;
}

// The word that ends before `at`, spaces back, a French elision's apostrophe with it: "the" in "the Saints", "l'"
// in "l'Oregon" and in "l' Oregon" (tokenized).
std::string_view word_before(std::string_view t, std::size_t at) {
    std::size_t end = at;
    while (end > 0 && t[end - 1] == ' ') --end;
    std::size_t w = end;
    if (w > 0 && t[w - 1] == '\'') --w;
    while (w > 0 && word_byte(t[w - 1])) --w;
    return t.substr(w, end - w);
}

// Whether the word before `at` says a thing or a country follows, not a person: "a", "an", "un", "une"; French
// "au", "aux", "en" ("au Brésil", "en France").
bool thing_before(std::string_view t, std::size_t at) {
    return in_word_lists(lower(std::string(word_before(t, at))), {"en/thing_words", "fr/thing_words"});
}

// Whether a German article comes before `at`: what follows is a noun ("ein Bob", a bobsleigh), not a person.
bool german_article_before(std::string_view t, std::size_t at) {
    return word_list("de/articles").contains(lower(std::string(word_before(t, at))));
}

bool ends_with(std::string_view word, std::string_view suffix) {
    return word.size() > suffix.size() && word.compare(word.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// English adjectives of nations, languages, faiths and days: Mexican, Hawaiian, British, Maltese, Gothic, Southern,
// Saturday.
bool adjective_like(std::string_view word) {
    for (std::string_view suffix : {"an", "ish", "ese", "ic", "ern", "day"})
        if (ends_with(word, suffix)) return true;
    return false;
}

// Words that stand at a sentence's start with a verb after them and are no names: gerunds and abstract nouns
// ("Gardening is fun", "Precision is key"), and pronouns that the vocabulary holds in pieces ("Somebody is ...").
bool subject_noun_like(std::string_view word) {
    for (std::string_view suffix : {"ing", "tion", "sion", "ity", "ness", "ment", "body"})
        if (ends_with(word, suffix)) return true;
    return word == "Everyone" || word == "Anyone" || word == "Noone";
}

// Given names common in English, German and French texts, written alike in the three languages. The captions hold
// some of them ("John" in "John Deere"), and the models garble those ("John is playing guitar." -> "Ein John John
// John's spielt Gitarre."): such a word is a name wherever it is capitalized, a known word or not. Names that are
// also words or places (Will, Mark, Rose, Christian, Paris, Jordan) are left out: those stay the model's.
bool given_name(std::string_view word) { return word_list("mul/given_names").contains(std::string(word)); }

// A given name at [b, e) of `t` that names a person by itself, not part of a longer name or a title: not after a
// word with a capital inside or a title's abbreviation ("LeBron James", "Mrs. Klaus", "St. Patrick"), nor after "of"
// that follows a capitalized word ("Star of David"), nor before "'s" and a capitalized word or before an initial
// ("John's Pizza", "John F. Kennedy"): those the model translates or the other rules find.
bool lone_given_name(std::string_view t, std::size_t b, std::size_t e) {
    if (!given_name(t.substr(b, e - b))) return false;
    auto capital = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
    std::size_t p = b;
    while (p > 0 && t[p - 1] == ' ') --p;
    if (p > 0 && t[p - 1] == '.') {
        const std::string_view title = word_before(t, p - 1);
        if (word_list("mul/titles").contains(std::string(title))) return false;
    }
    const std::string_view before = p < b ? word_before(t, b) : std::string_view();
    if (std::any_of(before.begin(), before.end(), capital)) return false;
    if (before == "of" || before == "de") {
        const std::string_view earlier = word_before(t, static_cast<std::size_t>(before.data() - t.data()));
        if (!earlier.empty() && capital(earlier.front())) return false;
    }
    for (std::string_view s : {"'s ", "’s "})
        if (t.substr(e, s.size()) == s && e + s.size() < t.size() && capital(t[e + s.size()])) return false;
    return !(e + 3 <= t.size() && t[e] == ' ' && capital(t[e + 1]) && t[e + 2] == '.' &&
             (e + 3 == t.size() || t[e + 3] == ' '));
}

// Whether a verb of one subject follows `at` in the source's language: "Maria is ...", "Marie est ...". Plural
// nouns, which start many captions ("Sailors stand ..."), take other forms; a singular noun takes an article.
bool singular_verb_at(std::string_view t, std::size_t at, Lang lang) {
    if (at >= t.size() || t[at] != ' ') return false;
    const std::size_t end = t.find(' ', at + 1);
    if (end == std::string_view::npos) return false;
    return word_list(lang == Lang::fr ? "fr/singular_verbs" : "en/singular_verbs")
        .contains(std::string(t.substr(at + 1, end - at - 1)));
}

// French elision before a name placeholder: 'l' for "l'" (dropped with it), 'd' for "d'" (kept as "de"), else 0.
char elided(std::string_view word) {
    const std::string w = lower(std::string(word));
    return w == "l'" ? 'l' : w == "d'" ? 'd' : 0;
}

// Whether a French word names what follows ("nommé", "appelée", "prénommés"): a name after it takes no "de", though
// a model that read the placeholder as a place writes "nommé d'Obama".
bool naming_word(std::string_view word) {
    std::string w = lower(std::string(word));
    if (!w.empty() && w.back() == 's') w.pop_back();
    if (!w.empty() && w.back() == 'e') w.pop_back();
    return word_list("fr/naming_words").contains(w);
}

// Whether a word of the text starts with `word` ("dog", "dogs", "doghouse"): its translation would start with the
// placeholder's ("Hunde"), and restore_copy_spans would take it for the placeholder's.
bool has_word_starting_with_ci(std::string_view text, const std::string& word) {
    const std::string w = lower(word);
    for (std::size_t i = 0; i + w.size() <= text.size(); ++i)
        if (!letter_before(text, i) && starts_with_ci(text, i, w)) return true;
    return false;
}

// Whether the vocabulary holds the word as it is or in lowercase.
bool cased(const Vocab& vocab, std::string_view word) {
    const std::string w(word);
    return vocab.contains(w) || vocab.contains(lower(w));
}

// Where restore_copy_spans finds a placeholder, `stem` (lowercase), in `out` from `from` on: the first word that
// begins with it and is at most 3 letters longer (Hund, Hunde, Hundes, Hunden; chien, chiens), as [begin, end);
// npos when there is none.
std::pair<std::size_t, std::size_t> find_placeholder(std::string_view out, const std::string& stem, std::size_t from) {
    for (std::size_t i = from; i < out.size(); ++i) {
        if (letter_before(out, i) || !starts_with_ci(out, i, stem)) continue;
        const std::size_t j = word_end_at(out, i);
        if (j - i <= stem.size() + 3) return {i, j};
    }
    return {std::string::npos, 0};
}

}  // namespace

std::vector<CopySpan> find_copy_spans(std::string_view t) {
    std::vector<CopySpan> spans;
    // A lone digit counting what follows ("2 girls", "3 Jungen") is a word the models know ("Zwei", "Trois"):
    // masking it costs more than it saves. Other numbers, numbers with separators and runs of numbers are copied.
    auto lone_digit = [&](const CopySpan& s) {
        return s.end - s.begin == 1 && digit(t[s.begin]) && s.end + 1 < t.size() && t[s.end] == ' ' &&
               std::isalpha(static_cast<unsigned char>(t[s.end + 1]));
    };
    auto drop_lone_digit = [&] {
        if (!spans.empty() && lone_digit(spans.back())) spans.pop_back();
    };
    for (std::size_t i = 0; i < t.size();) {
        const bool boundary = i == 0 || !word_byte(t[i - 1]);
        std::size_t end = 0;
        if (boundary && (starts_with_ci(t, i, "http://") || starts_with_ci(t, i, "https://") ||
                         starts_with_ci(t, i, "ftp://") || starts_with_ci(t, i, "www."))) {
            end = url_end(t, i);
        } else if (boundary && email_local(t[i]) && t[i] != '.' && (end = email_end(t, i)) > 0) {
        } else if (digit(t[i]) && (i == 0 || !ascii_alnum(t[i - 1]))) {  // after $, €, £ too
            end = number_end(t, i);
            for (const char* suffix : {"st", "nd", "rd", "th"})  // English ordinals: 3rd, 21st
                if (starts_with_ci(t, end, suffix) && (end + 2 == t.size() || !word_byte(t[end + 2]))) end += 2;
            if (end < t.size() && ascii_alnum(t[end])) end = 0;  // 7B, 20ern: a word, not a number (5°C is)
        }
        if (end > i) {
            // Numbers apart only by spaces ("1 2 3", "12 30") are one span: one placeholder keeps them together.
            if (!spans.empty() && digit(t[i]) && digit(t[spans.back().begin]) &&
                t.substr(spans.back().end, i - spans.back().end).find_first_not_of(' ') == std::string_view::npos) {
                spans.back().end = end;
            } else {
                drop_lone_digit();
                spans.push_back({i, end});
            }
            i = end;
        } else {
            ++i;
            // The rest of the word, up to a digit that may start a number after a symbol (€3.50).
            while (i < t.size() && word_byte(t[i]) && word_byte(t[i - 1]) && !(digit(t[i]) && !ascii_alnum(t[i - 1])))
                ++i;
        }
    }
    drop_lone_digit();
    return spans;
}

// People's first names fared worse as placeholders: "John" came out as "John John John's", "Santa" as
// "Weihnachtsmann".
const std::vector<std::string>& default_name_placeholders() {
    static const std::vector<std::string> names = {"Obama", "Seattle", "Miami", "Boston"};
    return names;
}

std::vector<CopySpan> find_name_spans(std::string_view t, Lang lang, const Vocab& source_vocab,
                                      const NonbreakingPrefixes* prefixes) {
    std::vector<CopySpan> spans;
    auto known = [&](std::string_view w) { return cased(source_vocab, w); };
    // Whether " and " or " et " follows `at`, then a capitalized word that `known` lacks.
    auto joined_to_unknown = [&](std::string_view text, std::size_t at) {
        if (at >= text.size() || text[at] != ' ') return false;
        const std::size_t conjunction = at + 1, space = text.find(' ', conjunction);
        if (space == std::string_view::npos ||
            !in_word_lists(std::string(text.substr(conjunction, space - conjunction)),
                           {"en/conjunctions", "fr/conjunctions"}))
            return false;
        const std::size_t b = space + 1, e = capitalized_word_end(text, b);
        return e > 0 && (!known(text.substr(b, e - b)) || lone_given_name(text, b, e));
    };
    // The capitalized word after `end` and the spaces after it ({0, 0}: none, or no space first).
    auto capitalized_word_after = [&](std::size_t end) -> CopySpan {
        std::size_t word = end;
        while (word < t.size() && t[word] == ' ') ++word;
        const std::size_t next = word > end ? capitalized_word_end(t, word) : 0;
        return next > 0 ? CopySpan{word, next} : CopySpan{0, 0};
    };
    // A title that keeps its period (Moses' non-breaking prefixes: "Dr.", "Mrs.", French "M.") and the capitalized
    // words after it: "Dr. Smith", else "Dr" would be a name of its own and "Smith", after a period, a sentence's
    // first word, which the models drop. Not the end of an abbreviation ("J.P. Morgan", "U.S. Navy"); a single
    // letter only before a word the vocabulary lacks ("M. Dupont", not "an A. Then") and not after a capitalized
    // word (an initial: "John F. Kennedy").
    auto titled_name_at = [&](std::size_t i) -> CopySpan {
        if (!prefixes || letter_before(t, i) || (i > 0 && t[i - 1] == '.') ||
            !std::isupper(static_cast<unsigned char>(t[i])))
            return {0, 0};
        std::size_t end = i + 1;
        while (end < t.size() && std::islower(static_cast<unsigned char>(t[end]))) ++end;
        if (end + 1 >= t.size() || t[end] != '.' || t[end + 1] != ' ' ||
            prefixes->kind(std::string(t.substr(i, end - i))) != NonbreakingPrefixes::Kind::always)
            return {0, 0};
        CopySpan name = capitalized_word_after(end + 1);
        if (name.end == 0) return {0, 0};
        if (end == i + 1) {
            const std::string_view before = word_before(t, i);
            if (known(t.substr(name.begin, name.end - name.begin)) ||
                (!before.empty() && capitalized_word_end(before, 0) == before.size()))
                return {0, 0};
        }
        for (CopySpan next = capitalized_word_after(name.end);
             next.end > 0 && !known(t.substr(next.begin, next.end - next.begin));
             next = capitalized_word_after(name.end))
            name.end = next.end;
        return {i, name.end};
    };
    for (std::size_t i = 0; i < t.size();) {
        if (const CopySpan titled = titled_name_at(i); titled.end > 0) {
            spans.push_back(titled);
            i = titled.end;
            continue;
        }
        std::size_t end = letter_before(t, i) ? 0 : capitalized_word_end(t, i);
        if (end == 0) {
            ++i;
            continue;
        }
        // The run of capitalized words from here, spaces apart ("Mike Tyson", "Grand Canyon"; two spaces where an
        // emoji was taken out between them).
        std::vector<CopySpan> run{{i, end}};
        for (CopySpan next = capitalized_word_after(end); next.end > 0; next = capitalized_word_after(end)) {
            run.push_back(next);
            end = next.end;
        }
        // German capitalizes every noun, so an unknown capitalized word says nothing: a name there is a given name,
        // with the words after it that the vocabulary lacks ("Anna Schmidt"), and not after an article ("ein Bob");
        // "Bob" alone is a bobsleigh ("Zwei Männer fahren Bob.").
        if (lang == Lang::de) {
            const std::string_view first = t.substr(i, run[0].end - i);
            auto word = [&](std::size_t k) { return t.substr(run[k].begin, run[k].end - run[k].begin); };
            std::size_t last = 0;
            while (last + 1 < run.size() && !known(word(last + 1))) ++last;
            if (lone_given_name(t, i, run[0].end) && first != "Bob" && !german_article_before(t, i))
                spans.push_back({i, run[last].end});
            i = end;
            continue;
        }
        // A sentence's first word is capitalized anyway: it begins a name only where more capitalized words follow
        // and it is no word in lowercase ("Mike Tyson is ...", not "Skateboarders ..."). A known word there makes the
        // run a title's ("Military Families are marching ...", "Two Frisbee players"), except an article ("The Dali
        // Lama").
        // Alone, an unknown word is a name where "and" joins it to another unknown capitalized word ("Laura and Tom
        // are ...") or a verb of one subject follows it ("Maria is walking ...").
        if (sentence_start(t, i)) {
            const std::string first(t.substr(i, run[0].end - i));
            const bool given = lone_given_name(t, i, run[0].end);
            const bool alone_a_name =
                given || (!known(first) && (joined_to_unknown(t, end) ||
                                            (singular_verb_at(t, end, lang) && !subject_noun_like(first))));
            if (run.size() > 1 && article(first))
                run.erase(run.begin());
            else if ((run.size() == 1 && !alone_a_name) || (source_vocab.contains(lower(first)) && !given))
                run.clear();
        }
        // What a caption calls "a Hummer", "a Boston Terrier" or "a Renaissance Festival" is a thing, which the model
        // translates with its article ("einem Hummer"); a person is no "a Maria". Countries the models know by name
        // ("au Brésil" -> "in Brazil").
        if (!run.empty() && thing_before(t, run.front().begin)) run.clear();
        // Adjectives of nations, faiths and days before what they describe ("a Mexican setting", "Hawaiian shirt",
        // "Australian Shepherd", "Saturday afternoon") are words the model translates, with what they describe; a
        // name that ends so before a verb (Morgan) is left to the model too, unless it is a given name (Brian).
        const std::string_view front =
            run.empty() ? std::string_view() : t.substr(run.front().begin, run.front().end - run.front().begin);
        if (!run.empty() && adjective_like(front) && !given_name(front) &&
            (run.size() > 1 || (run.front().end + 1 < t.size() && t[run.front().end] == ' ' &&
                                std::islower(static_cast<unsigned char>(t[run.front().end + 1])))))
            run.clear();
        // A given name alone is a name; with a name the model knows ("John Deere", "Mike Tyson") it is the model's.
        if (std::any_of(run.begin(), run.end(), [&](const CopySpan& w) {
                const std::string_view word = t.substr(w.begin, w.end - w.begin);
                return !known(word) || (run.size() == 1 && lone_given_name(t, w.begin, w.end));
            }))
            spans.push_back({run.front().begin, run.back().end});
        i = end;
    }
    return spans;
}

MaskedText mask_copy_spans(std::string_view text, Lang source, Lang target, const Vocab& source_vocab,
                           const Vocab& target_vocab, bool names,
                           const std::vector<std::string>& name_placeholders, const NonbreakingPrefixes* prefixes) {
    MaskedText m;
    const std::vector<CopySpan> copies = find_copy_spans(text);
    std::vector<std::pair<CopySpan, bool>> spans;  // and whether it is a name
    for (const CopySpan& c : copies) spans.emplace_back(c, false);
    if (names) {
        // Names inside a URL or an address are the URL's.
        for (const CopySpan& n : find_name_spans(text, source, source_vocab, prefixes))
            if (std::none_of(copies.begin(), copies.end(),
                             [&](const CopySpan& c) { return n.begin < c.end && c.begin < n.end; }))
                spans.emplace_back(n, true);
        std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
    }

    std::size_t next = 0, next_name = 0, copied = 0, masked_begin = 0;
    for (const auto& [s, is_name] : spans) {
        std::string source_word, target_word;
        if (is_name) {
            while (next_name < name_placeholders.size() &&
                   has_word_starting_with_ci(text, name_placeholders[next_name]))
                ++next_name;
            if (next_name == name_placeholders.size()) continue;  // the name stays the model's to translate
            source_word = target_word = name_placeholders[next_name++];
        } else {
            while (next < kPlaceholders.size() &&
                   (has_word_starting_with_ci(text, placeholder(next, source)) ||
                    !cased(source_vocab, placeholder(next, source)) || !cased(target_vocab, placeholder(next, target))))
                ++next;
            if (next == kPlaceholders.size()) continue;
            source_word = placeholder(next, source);
            target_word = placeholder(next, target);
            ++next;
        }
        m.text.append(text.substr(copied, s.begin - copied));
        m.text += source_word;
        m.originals.emplace_back(text.substr(s.begin, s.end - s.begin));
        m.source_words.push_back(std::move(source_word));
        m.target_words.push_back(std::move(target_word));
        m.names.push_back(is_name);
        m.source_articles.push_back(is_name && article(std::string(word_before(text, s.begin))));
        masked_begin = s.begin;
        copied = s.end;
    }
    m.text.append(text.substr(copied));
    if (m.originals.size() == 1) {
        std::size_t a = 0, b = text.size();
        while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
        while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
        m.whole = !m.names.front() && masked_begin == a && copied == b;
    }
    return m;
}

bool names_written_back(std::string_view translation, const MaskedText& masked) {
    std::size_t searched = 0;  // as restore_copy_spans searches: left to right, each after the one before
    for (std::size_t k = 0; k < masked.originals.size(); ++k) {
        const bool name = k < masked.names.size() && masked.names[k];
        const std::string stem = lower(masked.target_words[k]);
        const auto [found, end] = find_placeholder(translation, stem, searched);
        if (found == std::string::npos) {
            if (name) return false;
            searched = translation.size();  // restore puts the span at the end: no later one is found
            continue;
        }
        // Not written a second time, before or after.
        if (name && (find_placeholder(translation, stem, 0).first != found ||
                     find_placeholder(translation, stem, end).first != std::string::npos))
            return false;
        searched = end;
    }
    return true;
}

std::string restore_copy_spans(const std::string& translation, const MaskedText& masked, bool lowercase) {
    if (masked.originals.empty()) return translation;
    auto span_text = [&](std::size_t k) { return lowercase ? lower(masked.originals[k]) : masked.originals[k]; };
    auto name = [&](std::size_t k) { return k < masked.names.size() && masked.names[k]; };
    // A name the source gave an article ("the Saints", "l'Oregon") keeps the one its translation has.
    auto source_article = [&](std::size_t k) { return k < masked.source_articles.size() && masked.source_articles[k]; };
    // "de" before a name that starts with a consonant, "d'" before a vowel: "de Peter", "d'Anna".
    auto de = [](const std::string& span) {
        const bool vowel = !span.empty() && std::string_view("AEIOUaeiou").find(span[0]) != std::string_view::npos;
        return (vowel ? "d'" : "de ") + span;
    };
    if (masked.whole) return span_text(0);
    std::string out = translation;
    std::size_t searched = 0;  // placeholders are found left to right, as the spans came
    for (std::size_t k = 0; k < masked.originals.size(); ++k) {
        const auto [found, word_end] = find_placeholder(out, lower(masked.target_words[k]), searched);
        if (found == std::string::npos) {
            // The model dropped the placeholder: keep the span, before the final punctuation.
            std::size_t at = out.size();
            while (at > 0 && std::string_view(" .!?\"'»)…").find(out[at - 1]) != std::string_view::npos) --at;
            const std::string insert = (at > 0 ? " " : "") + span_text(k);
            out.insert(at, insert);
            searched = at + insert.size();
            continue;
        }
        // Drop an article a space before it ("ein Hund" -> "25", not "ein 25"). Before a name, a French elision
        // goes too, glued or not ("l'Obama"), whatever the source had: "l'" is only right before a vowel ("L'Dali
        // Lama"); "d'" comes back as "de" or "d'".
        std::size_t start = found;
        std::string replacement = span_text(k);
        const std::string_view before = word_before(out, found);
        const char elision = name(k) ? elided(before) : 0;
        if (elision != 0 ||
            (found > 0 && out[found - 1] == ' ' && article(std::string(before)) && !source_article(k)))
            start = static_cast<std::size_t>(before.data() - out.data());
        if (elision == 'd' && !naming_word(word_before(out, start))) replacement = de(replacement);
        out.replace(start, word_end - start, replacement);
        searched = start + replacement.size();
        // An English "an" kept before a name placeholder that starts with a vowel ("an Obama") goes with the name
        // that replaced it: "a Raiders" (not before a vowel or an h: "an Anna", "an Hawaiian").
        if (start == found && name(k) && std::string_view("AEIOUHaeiouh").find(replacement[0]) == std::string_view::npos) {
            const std::string_view kept = word_before(out, start);
            if (kept == "an" || kept == "An") {
                out.erase(static_cast<std::size_t>(kept.data() - out.data()) + 1, 1);
                --searched;
            }
        }
    }
    // A name placeholder written again has no span left to stand for ("mit Obama Obama"): dropped, with the space
    // before it.
    for (std::size_t k = 0; k < masked.originals.size(); ++k) {
        if (!name(k)) continue;
        const std::string& word = masked.target_words[k];
        for (std::size_t i = out.find(word); i != std::string::npos; i = out.find(word, i)) {
            const std::size_t j = word_end_at(out, i);
            if (letter_before(out, i) || j - i > word.size() + 3) {
                i = j;
                continue;
            }
            std::size_t from = i, to = j;
            // Quotes that held only it go with it ("vor Rome „Obama“").
            auto quote = [](std::string_view ch) { return ch == "\"" || multibyte_mark(ch); };
            const std::string_view open = char_before(out, from);
            if (to < out.size() && quote(open) && quote(char_at(out, to))) {
                from -= open.size();
                to += char_at(out, to).size();
            }
            if (from > 0 && out[from - 1] == ' ') --from;
            out.erase(from, to - from);
            i = from;
        }
    }
    return out;
}

void restore_copy_tokens(std::vector<std::string>& tokens, const std::vector<std::string>& words,
                         const std::vector<std::string>& originals) {
    auto continues = [](const std::string& t) { return t.size() > 2 && t.compare(t.size() - 2, 2, "@@") == 0; };
    auto piece = [&](const std::string& t) { return lower(continues(t) ? t.substr(0, t.size() - 2) : t); };
    std::size_t from = 0;
    for (std::size_t k = 0; k < words.size(); ++k) {
        const std::string w = lower(words[k]);
        for (std::size_t i = from; i < tokens.size(); ++i) {
            const std::string t = piece(tokens[i]);
            if (t.size() >= 2 && w.compare(0, t.size(), t) == 0 && t.size() * 2 >= w.size()) {
                tokens[i] = originals[k];
                from = i + 1;
                break;
            }
            // A placeholder in short pieces ("Ob@@ ama"): the span on the first, the others empty, one word still.
            std::string joined = t;
            std::size_t j = i;
            while (continues(tokens[j]) && j + 1 < tokens.size() && joined.size() < w.size()) joined += piece(tokens[++j]);
            if (j > i && joined.compare(0, w.size(), w) == 0 && joined.size() <= w.size() + 3) {
                tokens[i] = originals[k] + "@@";
                for (std::size_t p = i + 1; p <= j; ++p) tokens[p] = p < j ? "@@" : "";
                from = j + 1;
                break;
            }
        }
    }
}

}  // namespace attend
