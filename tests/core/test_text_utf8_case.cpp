#include <doctest/doctest.h>

#include <string>

#include "error.h"
#include "text/case_mapping.h"
#include "text/char_class.h"
#include "text/utf8.h"

using namespace attend;

TEST_CASE("utf8: decode and encode round-trip 1- to 4-byte characters") {
    const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // a é € 😀
    std::u32string cps = utf8_decode(text);
    REQUIRE(cps.size() == 4);
    CHECK(cps[0] == U'a');
    CHECK(cps[1] == 0xE9);
    CHECK(cps[2] == 0x20AC);
    CHECK(cps[3] == 0x1F600);
    CHECK(utf8_encode(cps) == text);
    CHECK(utf8_find_invalid(text) == std::string::npos);
}

TEST_CASE("utf8: invalid input names the byte offset") {
    CHECK(utf8_find_invalid("ab\xFF" "c") == 2);
    CHECK(utf8_find_invalid("abc\xC3") == 3);                // truncated
    CHECK(utf8_find_invalid("x\xC0\xAF") == 1);              // overlong '/'
    CHECK(utf8_find_invalid("\xED\xA0\x80") == 0);           // surrogate
    CHECK(utf8_find_invalid("ok\xF4\x90\x80\x80") == 2);     // above U+10FFFF
    CHECK(utf8_find_invalid("\xC3\xA9\x80") == 2);           // stray continuation byte
    try {
        utf8_decode("hello \xC3(");
        FAIL("expected attend::Error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("byte 6") != std::string::npos);
    }
    CHECK_THROWS_AS(lowercase("Gr\xFC\xDF"), Error);  // Latin-1 bytes, not UTF-8
}

TEST_CASE("case mapping: the languages' letters lowercase and uppercase") {
    CHECK(lowercase("ÄÖÜ ÀÂÆÇÉÈÊËÎÏÔŒÙÛŸ") == "äöü àâæçéèêëîïôœùûÿ");
    CHECK(lowercase("STRASSE ẞ") == "strasse ß");
    CHECK(lowercase("ŁÓDŹ ČEŠKÝ ŐRÜLT İ") == "łódź češký őrült i");
    CHECK(lowercase("ΑΘΗΝΑ Άλφα МОСКВА Ёж") == "αθηνα άλφα москва ёж");
    CHECK(lowercase("Ça va? 42 €") == "ça va? 42 €");
    CHECK(to_upper(U'é') == U'É');
    CHECK(to_upper(U'œ') == U'Œ');
    CHECK(to_upper(U'ÿ') == 0x178);
    CHECK(to_upper(U'ж') == U'Ж');
    CHECK(to_upper(U'ß') == U'ß');  // no single-character uppercase
    for (char32_t cp = 0x20; cp < 0x180; ++cp) {
        if (cp == 0x130) continue;  // İ lowercases to i, whose uppercase is I
        char32_t lower = to_lower(cp);
        if (lower != cp) CHECK(to_upper(lower) == cp);  // the table is a bijection on cased pairs
    }
    CHECK(capitalize_first("« été » .") == "« Été » .");
    CHECK(capitalize_first("éclair") == "Éclair");
    CHECK(capitalize_first("3 hommes") == "3 hommes");
    CHECK(uppercase("Zwei Männer spielen Fußball, œuvre, ёж.") == "ZWEI MÄNNER SPIELEN FUßBALL, ŒUVRE, ЁЖ.");
}

TEST_CASE("in capitals: no lower-case letter and two words of two or more capitals; an acronym alone is not") {
    CHECK(in_capitals("A MAN IS RIDING A HORSE ON THE BEACH."));
    CHECK(in_capitals("ZWEI MÄNNER AUF DER STRAßE"));  // ß has no simple capital: neither case
    CHECK(in_capitals("« ÇA VA, 42 € ? »"));
    CHECK(in_capitals("NEW YORK"));
    CHECK_FALSE(in_capitals("STOP!"));                // one word
    CHECK(in_capitals("I SAW A DOG"));                // "SAW" and "DOG"
    CHECK_FALSE(in_capitals("A B C D"));              // no word of two capitals
    CHECK_FALSE(in_capitals("The USA and the UK."));  // lower-case letters
    CHECK_FALSE(in_capitals("MEET THE iPHONE"));
    CHECK_FALSE(in_capitals("2024 - 12:45"));
    CHECK_FALSE(in_capitals(""));
    CHECK_THROWS_AS(in_capitals("AB CD \xC3"), Error);
}

TEST_CASE("character classes follow Perl's Unicode properties for Latin text") {
    CHECK(is_alpha(U'é'));
    CHECK(is_alpha(U'ß'));
    CHECK(is_alpha(U'œ'));
    CHECK(is_alpha(U'ж'));
    CHECK_FALSE(is_alpha(U'1'));
    CHECK_FALSE(is_alpha(U'€'));
    CHECK_FALSE(is_alpha(U'«'));
    CHECK_FALSE(is_alpha(0x2019));  // ’
    CHECK(is_number(U'²'));
    CHECK_FALSE(is_alnum(U'²'));  // \p{IsAlnum} is letters and decimal digits only
    CHECK(is_alnum(U'7'));
    CHECK(is_lower(U'ä'));
    CHECK_FALSE(is_lower(U'Ä'));
    CHECK(is_space(0xA0));
    CHECK_FALSE(is_space(U'x'));
}
