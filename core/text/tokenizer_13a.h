// sacreBLEU's default BLEU tokenizer, "13a" (the rules of WMT's mteval-v13a.pl), for scoring detokenized,
// cased text against raw references the way published WMT-style scores are computed:
//   - remove "<skipped>", join "-\n", newlines to spaces, unescape &quot; &amp; &lt; &gt; (in that order;
//     &apos; is left alone, so a hypothesis must not contain it);
//   - a space either side of every ASCII punctuation or symbol character except ' - . ,;
//   - "." and "," split off unless a digit is on both sides ("1,000" and "3.5" stay whole);
//   - "-" split off after a digit ("2-3" -> "2 - 3", "e-mail" stays whole);
//   - runs of whitespace (Python's str.split: Unicode spaces too) become one space, none at the ends.
// Each rule is one left-to-right pass of non-overlapping matches, as Python's re.sub applies its regular
// expressions, so "a.b.c" and "1.a" tokenize exactly as sacreBLEU does.
#pragma once
#include <string>
#include <string_view>

namespace attend {

std::string tokenize_13a(std::string_view line);

// The second half of tokenize_13a alone (sacreBLEU's TokenizerRegexp), which its zh tokenizer shares: the
// punctuation rules and the whitespace collapse on the line as given. No unescaping, and no space added at
// either end, so "5." at the very end of the line stays one token here where tokenize_13a splits it.
std::string tokenize_13a_rules(std::string_view line);

// Python's str.isspace for one code point (what str.split() separates at).
bool is_python_space(char32_t cp);

}  // namespace attend
