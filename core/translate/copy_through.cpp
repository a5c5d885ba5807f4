#include "translate/copy_through.h"

#include "text/vocab.h"

#include <array>
#include <cctype>

namespace attend {

namespace {

bool ascii_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return c >= '0' && c <= '9'; }
// Letters for word boundaries: ASCII letters and digits, and every byte of a multi-byte UTF-8 character (ä, é).
bool word_byte(char c) { return ascii_alnum(c) || (static_cast<unsigned char>(c) & 0x80); }

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
    static const char* const all[] = {"a",   "an",    "the",   "ein",  "eine", "einen", "einem", "einer", "eines",
                                      "der", "die",   "das",   "den",  "dem",  "des",   "un",    "une",   "le",
                                      "la",  "les",   "l'",    "du"};
    const std::string w = lower(word);
    for (const char* a : all)
        if (w == a) return true;
    return false;
}

// Whether a word of the text starts with `word` ("dog", "dogs", "doghouse"): its translation would start with the
// placeholder's ("Hunde"), and restore_copy_spans would take it for the placeholder's.
bool has_word_starting_with_ci(std::string_view text, const std::string& word) {
    const std::string w = lower(word);
    for (std::size_t i = 0; i + w.size() <= text.size(); ++i)
        if ((i == 0 || !word_byte(text[i - 1])) && starts_with_ci(text, i, w)) return true;
    return false;
}

bool cased(const Vocab& vocab, const char* word) { return vocab.contains(word) || vocab.contains(lower(word)); }

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

MaskedText mask_copy_spans(std::string_view text, Lang source, Lang target, const Vocab& source_vocab,
                           const Vocab& target_vocab) {
    MaskedText m;
    const std::vector<CopySpan> spans = find_copy_spans(text);
    std::size_t next = 0, copied = 0;
    for (const CopySpan& s : spans) {
        while (next < kPlaceholders.size() &&
               (has_word_starting_with_ci(text, placeholder(next, source)) || !cased(source_vocab, placeholder(next, source)) ||
                !cased(target_vocab, placeholder(next, target))))
            ++next;
        if (next == kPlaceholders.size()) break;
        m.text.append(text.substr(copied, s.begin - copied));
        m.text += placeholder(next, source);
        m.originals.emplace_back(text.substr(s.begin, s.end - s.begin));
        m.source_words.emplace_back(placeholder(next, source));
        m.target_words.emplace_back(placeholder(next, target));
        copied = s.end;
        ++next;
    }
    m.text.append(text.substr(copied));
    if (m.originals.size() == 1) {
        std::size_t a = 0, b = text.size();
        while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
        while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
        m.whole = spans.front().begin == a && spans.front().end == b;
    }
    return m;
}

std::string restore_copy_spans(const std::string& translation, const MaskedText& masked, bool lowercase) {
    if (masked.originals.empty()) return translation;
    auto span_text = [&](std::size_t k) { return lowercase ? lower(masked.originals[k]) : masked.originals[k]; };
    if (masked.whole) return span_text(0);
    std::string out = translation;
    std::size_t searched = 0;  // placeholders are found left to right, as the spans came
    for (std::size_t k = 0; k < masked.originals.size(); ++k) {
        const std::string stem = lower(masked.target_words[k]);
        std::size_t found = std::string::npos, word_end = 0;
        for (std::size_t i = searched; i < out.size(); ++i) {
            if ((i > 0 && word_byte(out[i - 1])) || !starts_with_ci(out, i, stem)) continue;
            std::size_t j = i;
            while (j < out.size() && word_byte(out[j])) ++j;
            if (j - i <= stem.size() + 3) {  // Hund, Hunde, Hundes, Hunden; chien, chiens
                found = i;
                word_end = j;
                break;
            }
        }
        if (found == std::string::npos) {
            // The model dropped the placeholder: keep the span, before the final punctuation.
            std::size_t at = out.size();
            while (at > 0 && std::string_view(" .!?\"'»)…").find(out[at - 1]) != std::string_view::npos) --at;
            const std::string insert = (at > 0 ? " " : "") + span_text(k);
            out.insert(at, insert);
            searched = at + insert.size();
            continue;
        }
        // Drop an article right before it ("ein Hund" -> "25", not "ein 25").
        std::size_t start = found;
        if (found >= 2 && out[found - 1] == ' ') {
            std::size_t w = found - 1;
            while (w > 0 && word_byte(out[w - 1])) --w;
            if (article(out.substr(w, found - 1 - w))) start = w;
        }
        const std::string replacement = span_text(k);
        out.replace(start, word_end - start, replacement);
        searched = start + replacement.size();
    }
    return out;
}

void restore_copy_tokens(std::vector<std::string>& tokens, const std::vector<std::string>& words,
                         const std::vector<std::string>& originals) {
    std::size_t from = 0;
    for (std::size_t k = 0; k < words.size(); ++k) {
        const std::string w = lower(words[k]);
        for (std::size_t i = from; i < tokens.size(); ++i) {
            std::string t = tokens[i];
            if (t.size() > 2 && t.compare(t.size() - 2, 2, "@@") == 0) t.resize(t.size() - 2);
            t = lower(t);
            if (t.size() >= 2 && w.compare(0, t.size(), t) == 0 && t.size() * 2 >= w.size()) {
                tokens[i] = originals[k];
                from = i + 1;
                break;
            }
        }
    }
}

}  // namespace attend
