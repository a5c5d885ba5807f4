// Simple (one code point to one code point) case mapping without ICU, for the letters of the languages
// Attend translates and their neighbours: ASCII, Latin-1 Supplement, Latin Extended-A, the common parts of
// Latin Extended-B and Latin Extended Additional, basic Greek and Cyrillic. Other code points map to themselves.
#pragma once
#include <string>
#include <string_view>

namespace attend {

char32_t to_lower(char32_t cp);
char32_t to_upper(char32_t cp);

// Lowercases UTF-8 text (as Moses' lowercase.perl does for these scripts). Throws attend::Error on invalid UTF-8.
std::string lowercase(std::string_view utf8);
// Uppercases the first letter (used by the detokenizer for display).
std::string capitalize_first(std::string_view utf8);
// Uppercases UTF-8 text (simple mappings: ß stays ß). Throws attend::Error on invalid UTF-8.
std::string uppercase(std::string_view utf8);

// Whether a text is written in capitals: no lower-case letter, and at least two words (runs between spaces) with
// two or more capitals each; one such word alone ("USA", "OK") is more likely an acronym than shouting. Throws
// attend::Error on invalid UTF-8.
bool in_capitals(std::string_view utf8);

}  // namespace attend
