// Moses tokenizer.perl (default options: no aggressive hyphen splitting, XML escaping on) for en, de, fr:
// punctuation split off, commas split except inside numbers, runs of dots kept together, contractions split
// the language's way (en "mcdonald 's", fr "qu' un", de "joe ' s"), a final period split unless the word is
// a non-breaking prefix, and & | < > ' " [ ] escaped as XML entities (&amp; &#124; &lt; &gt; &apos; &quot;
// &#91; &#93;). Lowercasing and punctuation normalization are separate steps (see preprocess_for_model).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "text/lang.h"
#include "text/nonbreaking_prefixes.h"

namespace attend {

struct TokenizeOptions {
    bool escape_xml = true;                    // Moses default; -no-escape turns it off
    bool aggressive_hyphen_splitting = false;  // Moses -a: "blond-haired" -> "blond @-@ haired"
};

// One line of UTF-8 text (no newline) to tokens. Throws attend::Error on invalid UTF-8 (with the byte offset).
std::vector<std::string> tokenize(std::string_view line, Lang lang, const NonbreakingPrefixes& prefixes,
                                  const TokenizeOptions& options = {});
// The same, tokens joined by single spaces (the Moses output line).
std::string tokenize_line(std::string_view line, Lang lang, const NonbreakingPrefixes& prefixes,
                          const TokenizeOptions& options = {});

// Undoes the XML escaping (&amp; &#124; &lt; &gt; &apos; &quot; &#91; &#93;).
std::string unescape_xml(std::string_view text);

}  // namespace attend
