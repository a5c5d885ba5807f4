// The languages whose tokenization rules Attend knows (Multi30K: English, German, French).
#pragma once
#include <string>
#include <string_view>

namespace attend {

enum class Lang { en, de, fr };

// "en", "de", "fr"; anything else throws attend::Error naming the code and the known ones.
Lang parse_lang(std::string_view code);
std::string lang_code(Lang lang);

// A language code a subword pipeline may carry: ISO 639 letters (2 or 3, lowercase) and optional subtags of 2 to 8
// letters or digits ("zh", "cmn", "pt-BR", "zh-Hans"). Throws attend::Error naming the code and the form expected.
void check_language_code(std::string_view code);

// Whether the language writes without spaces between words (Chinese, Japanese, Thai, ...): its BLEU is computed on
// characters (sacreBLEU's zh tokenizer for Chinese) and its subword model must cover a large character set.
bool is_unspaced_language(std::string_view code);

}  // namespace attend
