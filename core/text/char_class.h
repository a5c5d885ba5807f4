// Unicode character classes the Moses tokenizer rules use (Perl's \p{IsAlpha}, \p{IsN}, \p{IsAlnum},
// \p{IsLower}, \s), approximated without ICU: exact for Latin, Greek and Cyrillic; other scripts count as
// letters outside the known punctuation and symbol blocks.
#pragma once

namespace attend {

bool is_alpha(char32_t cp);    // \p{Alphabetic}
bool is_number(char32_t cp);   // \p{N}: decimal digits, superscripts, fractions, ...
bool is_decimal_digit(char32_t cp);
bool is_alnum(char32_t cp);    // \p{Alphabetic} or \p{Nd}
bool is_lower(char32_t cp);    // \p{Lowercase}
bool is_space(char32_t cp);    // Perl's Unicode \s

}  // namespace attend
