// The languages whose tokenization rules Attend knows (Multi30K: English, German, French).
#pragma once
#include <string>
#include <string_view>

namespace attend {

enum class Lang { en, de, fr };

// "en", "de", "fr"; anything else throws attend::Error naming the code and the known ones.
Lang parse_lang(std::string_view code);
std::string lang_code(Lang lang);

}  // namespace attend
