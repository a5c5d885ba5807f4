#include "text/normalize_punctuation.h"

#include <functional>

namespace attend {
namespace {

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_perl_byte_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

void replace_all(std::string& text, std::string_view from, std::string_view to) {
    std::string out;
    out.reserve(text.size());
    std::size_t start = 0;
    for (std::size_t found; (found = text.find(from, start)) != std::string::npos; start = found + from.size()) {
        out.append(text, start, found - start);
        out.append(to);
    }
    out.append(text, start, std::string::npos);
    text.swap(out);
}

void collapse_spaces(std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text)
        if (!(c == ' ' && !out.empty() && out.back() == ' ')) out.push_back(c);
    text.swap(out);
}

// Perl's s/(A)X(B)/.../g for one-byte A and B and a byte string X: matches do not overlap, each consumes A, X and B.
void replace_between_bytes(std::string& text, const std::function<bool(char)>& before, std::string_view middle,
                     const std::function<bool(char)>& after, std::string_view replacement) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t after_pos = i + 1 + middle.size();
        if (after_pos < text.size() && before(text[i]) && text.compare(i + 1, middle.size(), middle) == 0 &&
            after(text[after_pos])) {
            out.push_back(text[i]);
            out.append(replacement);
            out.push_back(text[after_pos]);
            i = after_pos + 1;
        } else {
            out.push_back(text[i++]);
        }
    }
    text.swap(out);
}

// English: s/"([,.]+)/$1"/g — the comma or period goes inside the quotes.
void move_quote_after_punctuation(std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        std::size_t end = i + 1;
        while (text[i] == '"' && end < text.size() && (text[end] == ',' || text[end] == '.')) ++end;
        if (text[i] == '"' && end > i + 1) {
            out.append(text, i + 1, end - i - 1);
            out.push_back('"');
            i = end;
        } else {
            out.push_back(text[i++]);
        }
    }
    text.swap(out);
}

// German/French: s/(\.+)"(\s*[^<])/"$1$2/g — the period goes outside the quotes. `text` ends with the
// newline the Perl script sees, so a final `."` moves too.
void move_quote_before_periods(std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        std::size_t end = i;
        while (end < text.size() && text[end] == '.') ++end;
        bool matched = false;
        if (end > i && end < text.size() && text[end] == '"') {
            std::size_t tail = end + 1;
            std::size_t spaces_end = tail;
            while (spaces_end < text.size() && is_perl_byte_space(text[spaces_end])) ++spaces_end;
            // \s* backtracks until one character that is not '<' follows.
            for (std::size_t k = spaces_end + 1; k-- > tail;) {
                if (k < text.size() && text[k] != '<') {
                    out.push_back('"');
                    out.append(text, i, end - i);
                    out.append(text, tail, k + 1 - tail);
                    i = k + 1;
                    matched = true;
                    break;
                }
            }
        }
        if (!matched) {
            std::size_t stop = end > i ? end : i + 1;
            out.append(text, i, stop - i);
            i = stop;
        }
    }
    text.swap(out);
}

}  // namespace

std::string normalize_punctuation(std::string_view line, Lang lang) {
    const auto digit = [](char c) { return is_ascii_digit(c); };
    const auto letter = [](char c) { return is_ascii_letter(c); };
    const std::string nbsp = "\xC2\xA0";

    std::string text(line);
    text.push_back('\n');
    replace_all(text, "\r", "");
    // remove extra spaces
    replace_all(text, "(", " (");
    replace_all(text, ")", ") ");
    collapse_spaces(text);
    for (const char* mark : {".", "!", ":", "?", ";", ","}) replace_all(text, std::string(") ") + mark, std::string(")") + mark);
    replace_all(text, "( ", "(");
    replace_all(text, " )", ")");
    replace_between_bytes(text, digit, " ", [](char c) { return c == '%'; }, "");
    replace_all(text, " :", ":");
    replace_all(text, " ;", ";");
    // normalize unicode punctuation
    replace_all(text, "`", "'");
    replace_all(text, "''", " \" ");
    replace_all(text, "\xE2\x80\x9E", "\"");  // „
    replace_all(text, "\xE2\x80\x9C", "\"");  // “
    replace_all(text, "\xE2\x80\x9D", "\"");  // ”
    replace_all(text, "\xE2\x80\x93", "-");   // –
    replace_all(text, "\xE2\x80\x94", " - ");  // —
    collapse_spaces(text);
    replace_all(text, "\xC2\xB4", "'");  // ´
    replace_between_bytes(text, letter, "\xE2\x80\x98", letter, "'");  // letter ‘ letter
    replace_between_bytes(text, letter, "\xE2\x80\x99", letter, "'");  // letter ’ letter
    replace_all(text, "\xE2\x80\x98", "'");   // ‘
    replace_all(text, "\xE2\x80\x9A", "'");   // ‚
    replace_all(text, "\xE2\x80\x99", "\"");  // ’
    replace_all(text, "''", "\"");
    replace_all(text, "\xC2\xB4\xC2\xB4", "\"");  // ´´
    replace_all(text, "\xE2\x80\xA6", "...");     // …
    // French quotes
    replace_all(text, " \xC2\xAB ", " \"");
    replace_all(text, "\xC2\xAB ", "\"");
    replace_all(text, "\xC2\xAB", "\"");
    replace_all(text, " \xC2\xBB ", "\" ");
    replace_all(text, " \xC2\xBB", "\"");
    replace_all(text, "\xC2\xBB", "\"");
    // handle pseudo-spaces (non-breaking spaces)
    replace_all(text, nbsp + "%", "%");
    replace_all(text, "n\xC2\xBA" + nbsp, "n\xC2\xBA ");
    replace_all(text, nbsp + ":", ":");
    replace_all(text, nbsp + "\xC2\xBA" "C", " \xC2\xBA" "C");
    replace_all(text, nbsp + "cm", " cm");
    replace_all(text, nbsp + "?", "?");
    replace_all(text, nbsp + "!", "!");
    replace_all(text, nbsp + ";", ";");
    replace_all(text, "," + nbsp, ", ");
    collapse_spaces(text);

    if (lang == Lang::en) {
        move_quote_after_punctuation(text);
    } else {
        replace_all(text, ",\"", "\",");
        move_quote_before_periods(text);
    }
    // digit groups separated by a non-breaking space: "10\u00A0000" -> "10,000" (en "10.000")
    replace_between_bytes(text, digit, nbsp, digit, lang == Lang::en ? "." : ",");

    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

}  // namespace attend
