// sacreBLEU's "zh" BLEU tokenizer (sacrebleu/tokenizers/tokenizer_zh.py, unchanged through 2.x), for scoring
// Chinese output, which has no spaces between words, the way published Chinese BLEU scores are computed:
//   - the line loses its leading and trailing whitespace (Python's str.strip);
//   - every code point sacreBLEU counts as Chinese (is_sacrebleu_chinese) gets a space on either side, so each
//     becomes a token of its own;
//   - then the punctuation rules of 13a (tokenize_13a_rules: no unescaping of &quot; etc., no "<skipped>"
//     removal, and no padding, unlike tokenize_13a) and the whitespace collapse run on the result.
#pragma once
#include <string>
#include <string_view>

namespace attend {

// Whether sacreBLEU's zh tokenizer splits this code point off: the CJK ideograph blocks (main block, extension
// A, compatibility ideographs), CJK radicals, strokes, structure characters, bopomofo, CJK symbols and
// punctuation (U+3000-303F), full-width and half-width forms (U+FF00-FFEF), vertical and small forms, enclosed
// CJK letters, CJK compatibility, and, as Python reads sacreBLEU's table, every code point from U+2001 to
// U+2A6D (general punctuation such as “ ” — …, currency signs, arrows, mathematical operators) but nothing
// above U+FFFF (see the .cpp).
bool is_sacrebleu_chinese(char32_t code_point);

// Invalid UTF-8 throws attend::Error.
std::string tokenize_zh(std::string_view line);

}  // namespace attend
