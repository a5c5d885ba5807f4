#include "text/tokenizer_zh.h"

#include "text/tokenizer_13a.h"
#include "text/utf8.h"

namespace attend {
namespace {

struct Range {
    char32_t first, last;  // inclusive
};

// sacreBLEU's _UCODE_RANGES in its order, as Python compares one character against them. Two of its entries
// are meant for the supplementary planes, u'\u20000'..u'\u2a6d6' (extension B) and u'\u2f800'..u'\u2fa1d'
// (compatibility supplement), but a \u escape takes exactly four hex digits, so each bound is a two-character
// string: '\u2000' '0' .. '\u2a6d' '6'. A single character c compares as c >= U+2001 (U+2000 itself is a
// prefix of the bound, so smaller) and c <= U+2A6D (a prefix of the upper bound, so smaller: inside). Those
// are the ranges below; scores computed with sacreBLEU depend on them, so they are kept as it applies them.
constexpr Range kChinese[] = {
    {0x3400, 0x4DB5},  // CJK Unified Ideographs Extension A
    {0x4E00, 0x9FA5},  // CJK Unified Ideographs
    {0x9FA6, 0x9FBB},  // CJK Unified Ideographs, Unicode 4.1
    {0xF900, 0xFA2D},  // CJK Compatibility Ideographs
    {0xFA30, 0xFA6A},
    {0xFA70, 0xFAD9},
    {0x2001, 0x2A6D},  // written u'\u20000'..u'\u2a6d6'
    {0x2F81, 0x2FA1},  // written u'\u2f800'..u'\u2fa1d'
    {0xFF00, 0xFFEF},  // full-width ASCII and punctuation, half-width katakana and hangul
    {0x2E80, 0x2EFF},  // CJK Radicals Supplement
    {0x3000, 0x303F},  // CJK Symbols and Punctuation
    {0x31C0, 0x31EF},  // CJK Strokes
    {0x2F00, 0x2FDF},  // Kangxi Radicals
    {0x2FF0, 0x2FFF},  // Ideographic Description Characters
    {0x3100, 0x312F},  // Bopomofo
    {0x31A0, 0x31BF},  // Bopomofo Extended
    {0xFE10, 0xFE1F},  // Vertical Forms
    {0xFE30, 0xFE4F},  // CJK Compatibility Forms
    {0x2600, 0x26FF},  // Miscellaneous Symbols
    {0x2700, 0x27BF},  // Dingbats
    {0x3200, 0x32FF},  // Enclosed CJK Letters and Months
    {0x3300, 0x33FF},  // CJK Compatibility
};

}  // namespace

bool is_sacrebleu_chinese(char32_t code_point) {
    for (const Range& range : kChinese)
        if (code_point >= range.first && code_point <= range.last) return true;
    return false;
}

std::string tokenize_zh(std::string_view line) {
    const std::u32string code_points = utf8_decode(line);
    std::size_t begin = 0, end = code_points.size();
    while (begin < end && is_python_space(code_points[begin])) ++begin;
    while (end > begin && is_python_space(code_points[end - 1])) --end;
    std::string spaced;
    spaced.reserve(line.size() * 2);
    for (std::size_t i = begin; i < end; ++i) {
        const char32_t cp = code_points[i];
        const bool chinese = is_sacrebleu_chinese(cp);
        if (chinese) spaced.push_back(' ');
        utf8_append(spaced, cp);
        if (chinese) spaced.push_back(' ');
    }
    return tokenize_13a_rules(spaced);
}

}  // namespace attend
