#include "text/detokenizer.h"

#include <algorithm>

#include "text/case_mapping.h"
#include "text/char_class.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

namespace attend {
namespace {

bool is_one_of(const std::string& token, std::initializer_list<const char*> options) {
    for (const char* option : options)
        if (token == option) return true;
    return false;
}

bool starts_with_letter(const std::string& token) {
    if (token.empty()) return false;
    std::u32string cps = utf8_decode(token);
    return is_alpha(cps.front());
}

bool ends_with_letter(const std::string& token) {
    if (token.empty()) return false;
    std::u32string cps = utf8_decode(token);
    return is_alpha(cps.back());
}

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }

// "s" or "s" then something that is not a letter ("s.", "s-Restaurant"): what follows the apostrophe of
// a possessive ("Wendy ' s-Restaurant").
bool is_possessive_s(const std::string& token) {
    if (token.empty() || token[0] != 's') return false;
    return token.size() == 1 || !starts_with_letter(token.substr(1));
}

// What follows the apostrophe of an English contraction that a model wrote as three tokens ("I ' m", "don ' t"):
// the tokenizer makes "'m" and "n't" single tokens, but BPE can spell a rare one out of its pieces. A quoted letter
// ("a ' d ' sign") is not one: its closing ' comes next (`after`, nullptr at the end).
bool is_contraction_suffix(const std::string& before, const std::string& token, const std::string* after) {
    if (after && *after == "'") return false;
    return is_one_of(token, {"m", "re", "ve", "ll", "d"}) || (token == "t" && !before.empty() && before.back() == 'n');
}

// Initials around "&": "A & M", "AT & T", "H & R Block", "A & M-Tennisspielerin".
bool is_initials_before(const std::string& token) {
    if (token.empty() || token.size() > 3) return false;
    for (char c : token)
        if (!is_ascii_upper(c)) return false;
    return true;
}
bool is_initials_after(const std::string& token) {
    std::size_t n = 0;
    while (n < token.size() && is_ascii_upper(token[n])) ++n;
    if (n == 0 || n > 3) return false;
    return n == token.size() || !starts_with_letter(token.substr(n));
}

bool only_periods(const std::string& token) {
    for (char c : token)
        if (c != '.') return false;
    return !token.empty();
}

bool all_digits(const std::string& token) {
    for (char c : token)
        if (!is_ascii_digit(c)) return false;
    return !token.empty();
}

}  // namespace

std::string detokenize(const std::vector<std::string>& input, Lang lang, const DetokenizeOptions& options) {
    std::vector<std::string> tokens;
    tokens.reserve(input.size());
    for (const std::string& token : input) {
        if (token.empty()) continue;
        tokens.push_back(options.unescape_xml ? unescape_xml(token) : token);
    }
    std::string out;
    bool glue_next = true;  // no space before the next token
    bool inside_double_quote = false, inside_single_quote = false, after_closing_quote = false;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& token = tokens[i];
        const std::string* prev = i > 0 ? &tokens[i - 1] : nullptr;
        const std::string* next = i + 1 < tokens.size() ? &tokens[i + 1] : nullptr;
        bool glue_before = glue_next;
        glue_next = false;
        std::string shown = token;
        const bool closed_quote_before = after_closing_quote;
        after_closing_quote = false;
        if (is_one_of(token, {"(", "[", "{", "¿", "¡", "$", "£", "€", "#"})) {
            glue_next = true;
        } else if (is_one_of(token, {",", "?", "!", ":", ";", "%", ")", "]", "}", "°"}) || only_periods(token)) {
            bool french_space = lang == Lang::fr && is_one_of(token, {"?", "!", ":", ";", "%"});
            if (token == ":" && prev && next && all_digits(*prev) && all_digits(*next)) {
                glue_before = true;  // a time, "53:11"
                glue_next = true;
            } else if (!french_space) {
                glue_before = true;
            }
        } else if (token == "\"") {
            if (inside_double_quote) {
                glue_before = true;
                after_closing_quote = true;
                if (lang == Lang::de) shown = "\u201C";  // “
            } else {
                glue_next = true;
                if (lang == Lang::de) shown = "\u201E";  // „
            }
            inside_double_quote = !inside_double_quote;
        } else if (token == "/" || token == "_") {
            glue_before = true;  // "and/or", "Freund/in"
            glue_next = true;
        } else if (token == "&" && prev && next && is_initials_before(*prev) && is_initials_after(*next)) {
            glue_before = true;  // "A&M", "Q&A"
            glue_next = true;
        } else if (token == "-" && lang == Lang::de && prev && next) {
            shown = "\u2013";  // the German dash between words, "Vier Menschen – drei Mädchen …"
        } else if (closed_quote_before && token.size() > 1 && token[0] == '-') {
            glue_before = true;  // „Mongolian BBQ“-Leuchtreklame
        } else if (lang == Lang::en && token.size() > 1 && token[0] == '\'' && starts_with_letter(token.substr(1))) {
            glue_before = true;  // 's 're 'll 'm 'd, and "o 'neil", "d 'oeuvres": English splits ' before a letter
        } else if (lang == Lang::en && token == "n't") {
            glue_before = true;
        } else if (token == "'" && prev && next && ends_with_letter(*prev) &&
                   (is_possessive_s(*next) ||
                    (lang == Lang::en && !inside_single_quote &&
                     is_contraction_suffix(*prev, *next, i + 2 < tokens.size() ? &tokens[i + 2] : nullptr)))) {
            glue_before = true;  // an apostrophe inside a word: German/English "joe ' s", English "I ' m", "don ' t"
            glue_next = true;
        } else if (token == "'" && inside_single_quote) {
            glue_before = true;  // closes 'Grand Opening'
            inside_single_quote = false;
        } else if (token == "'" && std::find(tokens.begin() + i + 1, tokens.end(), "'") != tokens.end()) {
            glue_next = true;  // opens a quotation that a later ' closes
            inside_single_quote = true;
        } else if (token == "'" && prev && ends_with_letter(*prev)) {
            glue_before = true;  // plural possessive "the boys '"
        } else if (lang == Lang::fr && token.size() > 1 && token.back() == '\'') {
            glue_next = true;  // qu' l' d' j'
        }
        if (!out.empty() && !glue_before) out.push_back(' ');
        out += shown;
    }
    return options.capitalize_first ? capitalize_first(out) : out;
}

std::string detokenize(std::string_view tokenized_line, Lang lang, const DetokenizeOptions& options) {
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start <= tokenized_line.size()) {
        std::size_t end = tokenized_line.find(' ', start);
        if (end == std::string_view::npos) end = tokenized_line.size();
        if (end > start) tokens.emplace_back(tokenized_line.substr(start, end - start));
        start = end + 1;
    }
    return detokenize(tokens, lang, options);
}

}  // namespace attend
