#include "text/char_class.h"

#include "text/case_mapping.h"

namespace attend {

bool is_decimal_digit(char32_t cp) {
    if (cp < 0x80) return cp >= '0' && cp <= '9';
    constexpr char32_t kZeros[] = {0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6,
                                   0x0C66, 0x0CE6, 0x0D66, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x17E0, 0x1810,
                                   0xFF10};
    for (char32_t zero : kZeros)
        if (cp >= zero && cp <= zero + 9) return true;
    return false;
}

bool is_number(char32_t cp) {
    if (is_decimal_digit(cp)) return true;
    if (cp < 0x80) return false;
    if (cp == 0xB2 || cp == 0xB3 || cp == 0xB9 || (cp >= 0xBC && cp <= 0xBE)) return true;  // ² ³ ¹ ¼ ½ ¾
    if (cp == 0x2070 || (cp >= 0x2074 && cp <= 0x2079) || (cp >= 0x2080 && cp <= 0x2089)) return true;
    if (cp >= 0x2150 && cp <= 0x2189) return true;  // fractions, Roman numerals
    if (cp >= 0x2460 && cp <= 0x249B) return true;  // circled and parenthesized numbers
    if (cp >= 0x24EA && cp <= 0x24FF) return true;
    if (cp >= 0x2776 && cp <= 0x2793) return true;
    if (cp == 0x3007 || (cp >= 0x3021 && cp <= 0x3029)) return true;
    return false;
}

bool is_alpha(char32_t cp) {
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    if (cp < 0x100) return cp == 0xAA || cp == 0xB5 || cp == 0xBA || (cp >= 0xC0 && cp != 0xD7 && cp != 0xF7);
    if (cp <= 0x02C1) return true;  // Latin Extended-A/B, IPA, modifier letters
    if (cp <= 0x036F)               // spacing modifiers and combining marks: only the modifier letters
        return (cp >= 0x02C6 && cp <= 0x02D1) || (cp >= 0x02E0 && cp <= 0x02E4) || cp == 0x02EC || cp == 0x02EE ||
               cp == 0x0345;
    if (cp <= 0x03FF)  // Greek: letters, not the tonos/question mark/numeral signs or unassigned points
        return !(cp >= 0x0374 && cp <= 0x0375) && !(cp >= 0x0378 && cp <= 0x0379) && cp != 0x037E &&
               !(cp >= 0x0380 && cp <= 0x0385) && cp != 0x0387 && cp != 0x038B && cp != 0x038D && cp != 0x03A2 &&
               cp != 0x03F6;
    if (cp <= 0x052F) return !(cp >= 0x0482 && cp <= 0x0489);  // Cyrillic letters, not its signs
    if (is_number(cp)) return false;
    // Punctuation, symbol and mark blocks; everything else is taken as a letter of some script.
    if (cp >= 0x0589 && cp <= 0x058F) return false;  // Armenian punctuation
    if (cp >= 0x0600 && cp <= 0x060F) return false;  // Arabic punctuation and signs
    if (cp >= 0x1AB0 && cp <= 0x1AFF) return false;  // combining marks
    if (cp >= 0x1DC0 && cp <= 0x1DFF) return false;
    if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // general punctuation, currency, arrows, math, symbols
    if (cp >= 0x2E00 && cp <= 0x2E7F) return false;
    if (cp >= 0x3000 && cp <= 0x303F) return cp == 0x3005 || cp == 0x3006;
    if (cp >= 0xE000 && cp <= 0xF8FF) return false;  // private use
    if (cp >= 0xFE00 && cp <= 0xFE6F) return false;  // variation selectors, small forms
    if (cp >= 0xFF00 && cp <= 0xFF20) return false;  // fullwidth punctuation
    if (cp >= 0xFF3B && cp <= 0xFF40) return false;
    if (cp >= 0xFF5B && cp <= 0xFF65) return false;
    if (cp >= 0xFFF0 && cp <= 0xFFFF) return false;
    if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;  // emoji and pictographs
    return true;
}

bool is_alnum(char32_t cp) { return is_alpha(cp) || is_decimal_digit(cp); }

bool is_lower(char32_t cp) {
    if (cp < 0x80) return cp >= 'a' && cp <= 'z';
    if (cp == 0xAA || cp == 0xBA || cp == 0xDF || cp == 0x0138 || cp == 0x0149) return true;
    return to_upper(cp) != cp;
}

bool is_space(char32_t cp) {
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

}  // namespace attend
