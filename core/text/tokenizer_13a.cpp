#include "text/tokenizer_13a.h"

#include "text/utf8.h"

namespace attend {
namespace {

void replace_all(std::string& text, std::string_view from, std::string_view to) {
    std::string out;
    std::size_t start = 0;
    while (true) {
        std::size_t hit = text.find(from, start);
        if (hit == std::string::npos) break;
        out.append(text, start, hit - start);
        out.append(to);
        start = hit + from.size();
    }
    if (start == 0) return;
    out.append(text, start, std::string::npos);
    text = std::move(out);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// [\{-\~\[-\` -\&\(-\+\:-\@\/]: { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
bool is_13a_symbol(char c) {
    return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
           (c >= ':' && c <= '@') || c == '/';
}

// The rules work on bytes: every character they name is ASCII, and a byte of a multi-byte UTF-8 sequence
// is never one of them, so matching bytes gives the same result as Python matching code points.
std::string split_symbols(std::string_view line) {
    std::string out;
    out.reserve(line.size() * 2);
    for (char c : line) {
        if (is_13a_symbol(c)) {
            out.push_back(' ');
            out.push_back(c);
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    return out;
}

// re.sub(r'(a)(b)', r'<lead>\1 \2<trail>', line) for one-character groups, a and b told by match(a, b): Python
// resumes its scan after each match, so matches do not overlap.
template <class Match>
std::string split_pairs(std::string_view line, Match match, std::string_view lead, std::string_view trail) {
    std::string out;
    out.reserve(line.size() * 2);
    std::size_t i = 0;
    while (i < line.size()) {
        if (i + 1 < line.size() && match(line[i], line[i + 1])) {
            out.append(lead);
            out.push_back(line[i]);
            out.push_back(' ');
            out.push_back(line[i + 1]);
            out.append(trail);
            i += 2;
        } else {
            out.push_back(line[i++]);
        }
    }
    return out;
}

// ' '.join(line.split())
std::string collapse_whitespace(std::string_view line) {
    std::u32string cps = utf8_decode(line);
    std::string out;
    out.reserve(line.size());
    bool pending_space = false;
    for (char32_t cp : cps) {
        if (is_python_space(cp)) {
            pending_space = !out.empty();
            continue;
        }
        if (pending_space) out.push_back(' ');
        pending_space = false;
        utf8_append(out, cp);
    }
    return out;
}

}  // namespace

bool is_python_space(char32_t cp) {
    return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
           cp == 0x3000;
}

std::string tokenize_13a(std::string_view input) {
    std::string line(input);
    replace_all(line, "<skipped>", "");
    replace_all(line, "-\n", "");
    replace_all(line, "\n", " ");
    if (line.find('&') != std::string::npos) {
        replace_all(line, "&quot;", "\"");
        replace_all(line, "&amp;", "&");
        replace_all(line, "&lt;", "<");
        replace_all(line, "&gt;", ">");
    }
    return tokenize_13a_rules(" " + line + " ");
}

std::string tokenize_13a_rules(std::string_view input) {
    std::string line = split_symbols(input);
    // re.sub(r'([^0-9])([\.,])', r'\1 \2 ', line)
    line = split_pairs(line, [](char a, char b) { return !is_digit(a) && is_period_or_comma(b); }, "", " ");
    // re.sub(r'([\.,])([^0-9])', r' \1 \2', line)
    line = split_pairs(line, [](char a, char b) { return is_period_or_comma(a) && !is_digit(b); }, " ", "");
    // re.sub(r'([0-9])(-)', r'\1 \2 ', line)
    line = split_pairs(line, [](char a, char b) { return is_digit(a) && b == '-'; }, "", " ");
    return collapse_whitespace(line);
}

}  // namespace attend
