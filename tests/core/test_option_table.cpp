// The option table (translate/option_table.h) against TranslationOptions and validate_options: every field a user
// sets has a row, each row's default is the field's initializer and lies in its bounds, and the core accepts the
// bounds and refuses what lies just outside them.
#include "error.h"
#include "translate/option_table.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>

using namespace attend;

namespace {

bool accepted(const TranslationOptionRow& row, double value) {
    TranslationOptions o;
    row.set(o, value);
    try {
        validate_options(o);
        return true;
    } catch (const Error&) {
        return false;
    }
}

// The fields of TranslationOptions as the header declares them (int, float, bool with an initializer).
std::set<std::string> declared_fields() {
    std::ifstream in(std::string(ATTEND_SOURCE_DIR) + "/include/attend/translation.h");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const std::string header = text.str();
    const size_t begin = header.find("struct TranslationOptions {");
    const size_t end = header.find("\n};", begin);
    REQUIRE(begin != std::string::npos);
    const std::string body = header.substr(begin, end - begin);
    std::set<std::string> fields;
    const std::regex field(R"(\n\s*(?:int|float|bool)\s+(\w+)\s*=)");
    for (std::sregex_iterator it(body.begin(), body.end(), field), last; it != last; ++it) fields.insert((*it)[1]);
    return fields;
}

}  // namespace

TEST_CASE("option table: a row for every number and boolean field of TranslationOptions, names unique") {
    std::set<std::string> fields, js, flags;
    for (const TranslationOptionRow& row : translation_option_table()) {
        CAPTURE(row.field);
        CHECK(fields.insert(row.field).second);
        if (row.js) CHECK(js.insert(row.js).second);
        if (row.flag) CHECK(flags.insert(row.flag).second);
        CHECK(std::string(row.help).size() > 10);
        CHECK((row.kind == OptionKind::integer) == (row.int_field != nullptr));
        CHECK((row.kind == OptionKind::number) == (row.float_field != nullptr));
        CHECK((row.kind == OptionKind::boolean) == (row.bool_field != nullptr));
        // A boolean's flag turns it off: each is on by default.
        if (row.kind == OptionKind::boolean && row.flag) {
            CHECK(row.flag[0] == '!');
            CHECK(row.default_value() == 1);
        }
    }
    const std::set<std::string> declared = declared_fields();
    CHECK(declared.size() >= 19);
    CHECK(fields == declared);
}

TEST_CASE("option table: defaults are TranslationOptions' own and lie within the bounds the core accepts") {
    const TranslationOptions defaults;
    for (const TranslationOptionRow& row : translation_option_table()) {
        CAPTURE(row.field);
        TranslationOptions changed;
        row.set(changed, row.kind == OptionKind::boolean ? 1 - row.default_value() : row.default_value() + 1);
        CHECK(row.get(changed) != row.get(defaults));  // the row reads and writes its own field
        if (row.kind == OptionKind::boolean) continue;
        const double v = row.default_value();
        CHECK(v <= row.max);
        CHECK((row.above_min ? v > row.min : v >= row.min));
    }
    const auto& table = translation_option_table();
    CHECK(table.front().default_value() == defaults.beam_size);
    CHECK(table.front().range_text() == "1..64");
}

TEST_CASE("option table: validate_options accepts each bound and refuses what lies just outside it") {
    for (const TranslationOptionRow& row : translation_option_table()) {
        if (row.kind == OptionKind::boolean) continue;
        CAPTURE(row.field);
        const bool integer = row.kind == OptionKind::integer;
        const double below = integer ? row.min - 1 : std::nextafter(static_cast<float>(row.min), -INFINITY);
        const double above = integer ? row.max + 1 : std::nextafter(static_cast<float>(row.max), INFINITY);
        CHECK(accepted(row, row.max));
        if (!row.above_min) CHECK(accepted(row, row.min));
        // The penalties: the core asks only that they be finite (and the repetition penalty above 0); the table
        // keeps them within what a JavaScript number and a float share, so its bounds are the stricter here.
        const bool penalty = std::string(row.field) == "length_penalty" || std::string(row.field) == "repetition_penalty";
        if (penalty) {
            CHECK_FALSE(accepted(row, std::numeric_limits<double>::infinity()));
            CHECK_FALSE(accepted(row, std::nan("")));
            if (row.above_min) CHECK_FALSE(accepted(row, row.min));
            continue;
        }
        CHECK_FALSE(accepted(row, row.above_min ? row.min : below));
        CHECK_FALSE(accepted(row, above));
    }
}

TEST_CASE("option table: help text says the default and the range") {
    for (const TranslationOptionRow& row : translation_option_table()) {
        CAPTURE(row.field);
        if (row.kind == OptionKind::boolean) {
            CHECK(row.help_text() == row.help);
            continue;
        }
        CHECK(row.help_text().find("(default: " + row.default_text() + "; " + row.range_text() + ")") !=
              std::string::npos);
    }
    for (const TranslationOptionRow& row : translation_option_table()) {
        if (std::string(row.field) == "length_penalty") {
            CHECK(row.default_text() == "the model's own, else 0.6");
            CHECK(row.range_text() == "-1000000..1000000");
        }
        if (std::string(row.field) == "repetition_penalty") CHECK(row.range_text() == "above 0..1000000");
    }
}
