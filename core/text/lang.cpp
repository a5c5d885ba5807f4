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

}  // namespace attend
