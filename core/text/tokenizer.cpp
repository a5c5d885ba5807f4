#include "text/tokenizer.h"

#include <functional>

#include "text/char_class.h"
#include "text/utf8.h"

namespace attend {
namespace {

using CharTest = std::function<bool(char32_t)>;

// Stands for one '.' of a run of dots while the rules run (Moses writes DOTMULTI); a letter for the
// contraction rules, as the letters of "DOTMULTI" are.
constexpr char32_t kDotOfRun = 0xE000;

bool alpha(char32_t c) { return is_alpha(c) || c == kDotOfRun; }

// Perl's s/(A)(B)(C)/.../g over fixed-width patterns: the leftmost match is replaced, the scan resumes after
// it, so matches never overlap. `build` appends the replacement for the matched characters.
void substitute(std::u32string& text, const std::vector<CharTest>& pattern,
                const std::function<void(std::u32string&, const char32_t*)>& build) {
    std::u32string out;
    out.reserve(text.size() + text.size() / 4);
    const std::size_t width = pattern.size();
    std::size_t i = 0;
    while (i < text.size()) {
        bool match = i + width <= text.size();
        for (std::size_t k = 0; match && k < width; ++k) match = pattern[k](text[i + k]);
        if (match) {
            build(out, text.data() + i);
            i += width;
        } else {
            out.push_back(text[i++]);
        }
    }
    text.swap(out);
}

CharTest is(char32_t c) { return [c](char32_t x) { return x == c; }; }
CharTest is_not(const CharTest& test) { return [test](char32_t x) { return !test(x); }; }

void collapse_and_trim_spaces(std::u32string& text) {
    std::u32string out;
    out.reserve(text.size());
    for (char32_t c : text)
        if (!(c == U' ' && (out.empty() || out.back() == U' '))) out.push_back(c);
    if (!out.empty() && out.back() == U' ') out.pop_back();
    text.swap(out);
}

// Perl's split(/ /, $text): empty fields kept, except trailing ones.
std::vector<std::u32string> split_on_space(const std::u32string& text) {
    std::vector<std::u32string> words;
    std::size_t start = 0;
    while (true) {
        std::size_t end = text.find(U' ', start);
        if (end == std::u32string::npos) {
            words.push_back(text.substr(start));
            break;
        }
        words.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    while (!words.empty() && words.back().empty()) words.pop_back();
    return words;
}

void separate_special_characters(std::u32string& text) {
    std::u32string out;
    out.reserve(text.size() * 2);
    for (char32_t c : text) {
        bool kept = is_alnum(c) || c == U' ' || c == U'.' || c == U'\'' || c == U'`' || c == U',' || c == U'-';
        if (kept) {
            out.push_back(c);
        } else {
            out.push_back(U' ');
            out.push_back(c);
            out.push_back(U' ');
        }
    }
    text.swap(out);
}

// A run of two or more dots becomes its own token: a space before it, and one after it unless it ends the text.
void separate_dot_runs(std::u32string& text) {
    std::u32string out;
    out.reserve(text.size() + 8);
    for (std::size_t i = 0; i < text.size();) {
        std::size_t end = i;
        while (end < text.size() && text[end] == U'.') ++end;
        if (end - i >= 2) {
            out.push_back(U' ');
            out.append(end - i, kDotOfRun);
            if (end < text.size()) out.push_back(U' ');
            i = end;
        } else {
            out.push_back(text[i++]);
        }
    }
    text.swap(out);
}

void separate_commas(std::u32string& text) {
    const CharTest comma = is(U','), number = is_number, not_number = is_not(is_number);
    substitute(text, {not_number, comma}, [](std::u32string& out, const char32_t* m) { out += m[0]; out += U" , "; });
    substitute(text, {comma, not_number}, [](std::u32string& out, const char32_t* m) { out += U" , "; out += m[1]; });
    // a comma after a number at the very end
    if (text.size() >= 2 && text.back() == U',' && is_number(text[text.size() - 2])) {
        text.pop_back();
        text += U" ,";
    }
}

void split_contractions(std::u32string& text, Lang lang) {
    const CharTest apostrophe = is(U'\''), letter = alpha, not_letter = is_not(alpha);
    const auto spaced = [](std::u32string& out, const char32_t* m) { out += m[0]; out += U" ' "; out += m[2]; };
    if (lang == Lang::en) {
        const CharTest neither = [](char32_t c) { return !alpha(c) && !is_number(c); };
        substitute(text, {not_letter, apostrophe, not_letter}, spaced);
        substitute(text, {neither, apostrophe, letter}, spaced);
        substitute(text, {letter, apostrophe, not_letter}, spaced);
        substitute(text, {letter, apostrophe, letter},
                   [](std::u32string& out, const char32_t* m) { out += m[0]; out += U" '"; out += m[2]; });
        substitute(text, {is_number, apostrophe, is(U's')},  // "1990's"
                   [](std::u32string& out, const char32_t* m) { out += m[0]; out += U" '"; out += m[2]; });
    } else if (lang == Lang::fr) {
        substitute(text, {not_letter, apostrophe, not_letter}, spaced);
        substitute(text, {not_letter, apostrophe, letter}, spaced);
        substitute(text, {letter, apostrophe, not_letter}, spaced);
        substitute(text, {letter, apostrophe, letter},
                   [](std::u32string& out, const char32_t* m) { out += m[0]; out += U"' "; out += m[2]; });
    } else {
        substitute(text, {apostrophe}, [](std::u32string& out, const char32_t*) { out += U" ' "; });
    }
}

bool contains(const std::u32string& word, const CharTest& test) {
    for (char32_t c : word)
        if (test(c)) return true;
    return false;
}

// Splits the period off a word "xyz." unless the word is an abbreviation (has an inner period and a letter,
// is a non-breaking prefix, or the next word starts in lowercase) or a numeric-only prefix before a number.
std::u32string split_final_periods(const std::u32string& text, const NonbreakingPrefixes& prefixes) {
    std::vector<std::u32string> words = split_on_space(text);
    std::u32string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        std::u32string& word = words[i];
        if (word.size() >= 2 && word.back() == U'.') {
            std::u32string pre = word.substr(0, word.size() - 1);
            const bool is_last = i + 1 == words.size();
            const std::u32string* next = is_last ? nullptr : &words[i + 1];
            NonbreakingPrefixes::Kind kind = prefixes.empty() ? NonbreakingPrefixes::Kind::none
                                                              : prefixes.kind(utf8_encode(pre));
            // The Moses snapshot behind Multi30K checks the last word like any other (later versions always
            // split it): "linie a." keeps its period because "a" is a German non-breaking prefix.
            bool keep = (contains(pre, is(U'.')) && contains(pre, is_alpha)) ||
                        kind == NonbreakingPrefixes::Kind::always || (next && !next->empty() && is_lower((*next)[0])) ||
                        (kind == NonbreakingPrefixes::Kind::numeric_only && next && !next->empty() &&
                         (*next)[0] >= U'0' && (*next)[0] <= U'9');
            if (!keep) word = pre + U" .";
        }
        out += word;
        out += U' ';
    }
    return out;
}

void escape_xml(std::string& out, char32_t c) {
    switch (c) {
        case U'&': out += "&amp;"; break;
        case U'|': out += "&#124;"; break;
        case U'<': out += "&lt;"; break;
        case U'>': out += "&gt;"; break;
        case U'\'': out += "&apos;"; break;
        case U'"': out += "&quot;"; break;
        case U'[': out += "&#91;"; break;
        case U']': out += "&#93;"; break;
        default: utf8_append(out, c);
    }
}

}  // namespace

std::string tokenize_line(std::string_view line, Lang lang, const NonbreakingPrefixes& prefixes,
                          const TokenizeOptions& options) {
    std::u32string decoded = utf8_decode(line);
    std::u32string text;
    text.reserve(decoded.size() + 2);
    // whitespace runs become one space, other ASCII control characters go
    text.push_back(U' ');
    for (char32_t c : decoded) {
        if (is_space(c)) {
            if (text.back() != U' ') text.push_back(U' ');
        } else if (c >= 0x20) {
            text.push_back(c);
        }
    }
    collapse_and_trim_spaces(text);
    if (text.empty()) return std::string();

    separate_special_characters(text);
    if (options.aggressive_hyphen_splitting) {
        std::u32string out;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == U'-' && i > 0 && is_alnum(text[i - 1]) && i + 1 < text.size() && is_alnum(text[i + 1]))
                out += U" @-@ ";
            else
                out.push_back(text[i]);
        }
        text.swap(out);
    }
    separate_dot_runs(text);
    separate_commas(text);
    split_contractions(text, lang);
    text = split_final_periods(text, prefixes);
    collapse_and_trim_spaces(text);
    // ".'" at the end of the sentence is missed by the rules above
    if (text.size() >= 2 && text[text.size() - 2] == U'.' && text.back() == U'\'') {
        text.resize(text.size() - 2);
        text += U" . ' ";  // Moses leaves the double and trailing space; the tok files have them
    }

    std::string out;
    out.reserve(text.size() + 16);
    for (char32_t c : text) {
        if (c == kDotOfRun)
            out.push_back('.');
        else if (options.escape_xml)
            escape_xml(out, c);
        else
            utf8_append(out, c);
    }
    return out;
}

std::vector<std::string> tokenize(std::string_view line, Lang lang, const NonbreakingPrefixes& prefixes,
                                  const TokenizeOptions& options) {
    std::string joined = tokenize_line(line, lang, prefixes, options);
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start < joined.size()) {
        std::size_t end = joined.find(' ', start);
        if (end == std::string::npos) end = joined.size();
        if (end > start) tokens.emplace_back(joined, start, end - start);
        start = end + 1;
    }
    return tokens;
}

std::string unescape_xml(std::string_view text) {
    static const std::pair<std::string_view, char> kEntities[] = {
        {"&amp;", '&'}, {"&#124;", '|'}, {"&lt;", '<'}, {"&gt;", '>'},
        {"&apos;", '\''}, {"&quot;", '"'}, {"&#91;", '['}, {"&#93;", ']'}};
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        bool replaced = false;
        if (text[i] == '&') {
            for (const auto& [entity, c] : kEntities) {
                if (text.compare(i, entity.size(), entity) == 0) {
                    out.push_back(c);
                    i += entity.size();
                    replaced = true;
                    break;
                }
            }
        }
        if (!replaced) out.push_back(text[i++]);
    }
    return out;
}

}  // namespace attend
