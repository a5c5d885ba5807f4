#include "text/detokenizer.h"

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
    bool inside_double_quote = false;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& token = tokens[i];
        const std::string* next = i + 1 < tokens.size() ? &tokens[i + 1] : nullptr;
        bool glue_before = glue_next;
        glue_next = false;
        if (is_one_of(token, {"(", "[", "{", "¿", "¡", "$", "£", "€", "#"})) {
            glue_next = true;
        } else if (is_one_of(token, {",", ".", "?", "!", ":", ";", "%", ")", "]", "}", "..."})) {
            bool french_space = lang == Lang::fr && is_one_of(token, {"?", "!", ":", ";", "%"});
            if (!french_space) glue_before = true;
        } else if (token == "\"") {
            if (inside_double_quote) glue_before = true;
            else glue_next = true;
            inside_double_quote = !inside_double_quote;
        } else if (lang == Lang::en && token.size() > 1 && token[0] == '\'' && starts_with_letter(token.substr(1))) {
            glue_before = true;  // 's 're 'll 'm 'd
        } else if (lang == Lang::en && token == "n't") {
            glue_before = true;
        } else if (token == "'" && next && *next == "s" && !out.empty() && ends_with_letter(tokens[i - 1])) {
            glue_before = true;  // German/English "joe ' s"
            glue_next = true;
        } else if (token == "'" && !out.empty() && ends_with_letter(tokens[i - 1])) {
            glue_before = true;  // plural possessive "the boys '"
        } else if (lang == Lang::fr && token.size() > 1 && token.back() == '\'') {
            glue_next = true;  // qu' l' d' j'
        }
        if (!out.empty() && !glue_before) out.push_back(' ');
        out += token;
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
