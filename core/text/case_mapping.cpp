#include "text/case_mapping.h"

#include "text/char_class.h"
#include "text/utf8.h"

namespace attend {
namespace {

// Many blocks pair an uppercase letter with the lowercase letter right after it. `upper_is_even` says
// whether the uppercase member of each pair sits at the even code point.
bool in_paired_block(char32_t cp, char32_t first, char32_t last) { return cp >= first && cp <= last; }

char32_t lower_of_pair(char32_t cp, bool upper_is_even) {
    bool is_even = (cp % 2) == 0;
    return is_even == upper_is_even ? cp + 1 : cp;
}

char32_t upper_of_pair(char32_t cp, bool upper_is_even) {
    bool is_even = (cp % 2) == 0;
    return is_even == upper_is_even ? cp : cp - 1;
}

struct PairedBlock {
    char32_t first, last;  // inclusive, covering whole pairs
    bool upper_is_even;
};

// Latin Extended-A/B, Latin Extended Additional, Greek and Cyrillic blocks made of (upper, lower) pairs.
constexpr PairedBlock kPairedBlocks[] = {
    {0x0100, 0x012F, true},  {0x0132, 0x0137, true},  {0x0139, 0x0148, false}, {0x014A, 0x0177, true},
    {0x0179, 0x017E, false}, {0x01CD, 0x01DC, false}, {0x01DE, 0x01EF, true},  {0x01F8, 0x021F, true},
    {0x0222, 0x0233, true},  {0x03D8, 0x03EF, true},  {0x0460, 0x0481, true},  {0x048A, 0x04BF, true},
    {0x04C1, 0x04CE, false}, {0x04D0, 0x052F, true},  {0x1E00, 0x1E95, true},  {0x1EA0, 0x1EFF, true},
};

}  // namespace

char32_t to_lower(char32_t cp) {
    if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;  // À..Þ except ×
    if (cp < 0x100) return cp;
    for (const PairedBlock& block : kPairedBlocks)
        if (in_paired_block(cp, block.first, block.last)) return lower_of_pair(cp, block.upper_is_even);
    switch (cp) {
        case 0x0130: return 'i';     // İ (full mapping adds U+0307; the simple one is enough here)
        case 0x0178: return 0x00FF;  // Ÿ
        case 0x0181: return 0x0253;
        case 0x0186: return 0x0254;
        case 0x0189: return 0x0256;
        case 0x018A: return 0x0257;
        case 0x018F: return 0x0259;  // Ə
        case 0x0190: return 0x025B;
        case 0x0193: return 0x0260;
        case 0x0194: return 0x0263;
        case 0x0196: return 0x0269;
        case 0x0197: return 0x0268;
        case 0x019C: return 0x026F;
        case 0x019D: return 0x0272;
        case 0x019F: return 0x0275;
        case 0x01A9: return 0x0283;
        case 0x01AE: return 0x0288;
        case 0x01B1: return 0x028A;
        case 0x01B2: return 0x028B;
        case 0x01B7: return 0x0292;
        case 0x01C4: case 0x01C5: return 0x01C6;
        case 0x01C7: case 0x01C8: return 0x01C9;
        case 0x01CA: case 0x01CB: return 0x01CC;
        case 0x01F1: case 0x01F2: return 0x01F3;
        case 0x0386: return 0x03AC;
        case 0x0388: case 0x0389: case 0x038A: return cp + 37;
        case 0x038C: return 0x03CC;
        case 0x038E: case 0x038F: return cp + 63;
        case 0x1E9E: return 0x00DF;  // ẞ
        default: break;
    }
    if (cp >= 0x0391 && cp <= 0x03AB && cp != 0x03A2) return cp + 32;  // Greek capitals
    if (cp >= 0x0410 && cp <= 0x042F) return cp + 32;                  // Cyrillic А..Я
    if (cp >= 0x0400 && cp <= 0x040F) return cp + 80;                  // Ѐ..Џ
    if (cp == 0x04C0) return 0x04CF;
    return cp;
}

char32_t to_upper(char32_t cp) {
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') ? cp - 32 : cp;
    if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;  // à..þ except ÷
    if (cp == 0x00FF) return 0x0178;
    if (cp == 0x00B5) return 0x039C;  // µ
    if (cp < 0x100) return cp;
    for (const PairedBlock& block : kPairedBlocks)
        if (in_paired_block(cp, block.first, block.last)) return upper_of_pair(cp, block.upper_is_even);
    switch (cp) {
        case 0x0131: return 'I';  // dotless ı
        case 0x017F: return 'S';  // long ſ
        case 0x01C5: case 0x01C6: return 0x01C4;
        case 0x01C8: case 0x01C9: return 0x01C7;
        case 0x01CB: case 0x01CC: return 0x01CA;
        case 0x01F2: case 0x01F3: return 0x01F1;
        case 0x03AC: return 0x0386;
        case 0x03AD: case 0x03AE: case 0x03AF: return cp - 37;
        case 0x03CC: return 0x038C;
        case 0x03CD: case 0x03CE: return cp - 63;
        case 0x03C2: return 0x03A3;  // final sigma
        default: break;
    }
    if (cp >= 0x03B1 && cp <= 0x03CB) return cp - 32;
    if (cp >= 0x0430 && cp <= 0x044F) return cp - 32;
    if (cp >= 0x0450 && cp <= 0x045F) return cp - 80;
    if (cp == 0x04CF) return 0x04C0;
    return cp;
}

std::string lowercase(std::string_view utf8) {
    std::u32string code_points = utf8_decode(utf8);
    for (char32_t& cp : code_points) cp = to_lower(cp);
    return utf8_encode(code_points);
}

std::string capitalize_first(std::string_view utf8) {
    std::u32string code_points = utf8_decode(utf8);
    for (char32_t& cp : code_points) {
        if (!is_alnum(cp)) continue;  // skip leading quotes and brackets
        cp = to_upper(cp);
        break;
    }
    return utf8_encode(code_points);
}

std::string uppercase(std::string_view utf8) {
    std::u32string code_points = utf8_decode(utf8);
    for (char32_t& cp : code_points) cp = to_upper(cp);
    return utf8_encode(code_points);
}

bool in_capitals(std::string_view utf8) {
    int shouted_words = 0;
    int capitals_in_word = 0;
    for (char32_t cp : utf8_decode(utf8)) {
        if (to_upper(cp) != cp) return false;  // a lower-case letter (ß, which has no simple capital, is neither)
        if (is_space(cp)) {
            capitals_in_word = 0;
        } else if (to_lower(cp) != cp && ++capitals_in_word == 2) {
            shouted_words++;
        }
    }
    return shouted_words >= 2;
}

}  // namespace attend
