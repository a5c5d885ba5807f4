// Tokens back to display text (after Moses' detokenizer.perl): XML entities unescaped, punctuation joined to
// the word before it, opening brackets to the word after it, straight quotes paired, English clitics
// ("'s", "n't") and French elisions ("qu'", "l'") joined, German "joe ' s" -> "joe's"; French keeps its
// space before ? ! : ; %. The first letter is capitalized for display.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "text/lang.h"

namespace attend {

struct DetokenizeOptions {
    bool capitalize_first = true;
    bool unescape_xml = true;
};

std::string detokenize(const std::vector<std::string>& tokens, Lang lang, const DetokenizeOptions& options = {});
// The same for a line of space-separated tokens.
std::string detokenize(std::string_view tokenized_line, Lang lang, const DetokenizeOptions& options = {});

}  // namespace attend
