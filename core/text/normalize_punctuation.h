// Moses' normalize-punctuation.perl: typographic quotes and dashes to ASCII, French guillemets to '"',
// spaces around brackets and before ':;?!%' fixed, language-specific quote/comma order and digit grouping.
// Like the Perl script (which runs on bytes), letters in its rules are ASCII letters.
#pragma once
#include <string>
#include <string_view>

#include "text/lang.h"

namespace attend {

// One line of UTF-8 text in, one line out (no newline expected).
std::string normalize_punctuation(std::string_view line, Lang lang);

}  // namespace attend
