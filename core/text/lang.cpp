#include "text/lang.h"

#include "error.h"

namespace attend {

Lang parse_lang(std::string_view code) {
    if (code == "en") return Lang::en;
    if (code == "de") return Lang::de;
    if (code == "fr") return Lang::fr;
    throw Error("language '" + std::string(code) + "' is not supported (expected one of: en, de, fr)");
}

std::string lang_code(Lang lang) {
    switch (lang) {
        case Lang::en: return "en";
        case Lang::de: return "de";
        case Lang::fr: return "fr";
    }
    return "?";
}

void check_language_code(std::string_view code) {
    auto fail = [&] {
        throw Error("language code '" + std::string(code) +
                    "' is not valid (expected 2 or 3 lowercase letters, e.g. en, zh, cmn, optionally with subtags: "
                    "pt-BR, zh-Hans)");
    };
    std::size_t i = 0;
    while (i < code.size() && code[i] >= 'a' && code[i] <= 'z') i++;
    if (i < 2 || i > 3) fail();
    while (i < code.size()) {
        if (code[i] != '-') fail();
        std::size_t j = ++i;
        while (j < code.size() && ((code[j] >= 'a' && code[j] <= 'z') || (code[j] >= 'A' && code[j] <= 'Z') ||
                                   (code[j] >= '0' && code[j] <= '9')))
            j++;
        if (j - i < 2 || j - i > 8) fail();
        i = j;
    }
}

bool is_unspaced_language(std::string_view code) {
    const std::string_view base = code.substr(0, code.find('-'));
    for (std::string_view c : {"zh", "cmn", "yue", "wuu", "ja", "jpn", "th", "tha", "lo", "lao", "km", "khm", "my", "mya"})
        if (base == c) return true;
    return false;
}

}  // namespace attend
