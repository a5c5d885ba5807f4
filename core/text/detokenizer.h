// Tokens back to display text (after Moses' detokenizer.perl), the text a person would write: XML entities
// unescaped; punctuation joined to the word before it, opening brackets to the word after it; straight
// double quotes paired (German shows them as „…“, its own quotation marks); standalone single quotes paired
// when a second one follows, otherwise an apostrophe of the word before it; English clitics ("'s", "'re",
// "n't", any "'" + letters) and French elisions ("qu'", "l'") joined, German/English "joe ' s" -> "joe's"; "/", "A & M",
// "53 : 11" and "360 °" joined; a German dash between words shown as the en dash "–" it writes there;
// French keeps its space before ? ! : ; %. The first letter is capitalized for display.
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
