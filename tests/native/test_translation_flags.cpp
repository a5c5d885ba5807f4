// The translation options' flags (cli/translation_flags.h) against the option table: `attend translate` and `attend
// eval` have every row as a flag, with the table's help text and default, eval's numbers range-checked from the
// table's bounds; and docs/cli.md's option list is the table's (ATTEND_WRITE_DOCS=1 writes it there).
#include "cli/translation_flags.h"
#include "cli_test_util.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

using namespace attend;
using namespace attend::cli;
using attend_test::Run;
using attend_test::run_attend;

namespace {

bool in_command(const TranslationOptionRow& row, TranslationFlags which) {
    return row.flag && !(row.translate_only && which == TranslationFlags::eval);
}

std::string parse_error(CLI::App& app, std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    try {
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        return e.what();
    }
    return "";
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The table as docs/cli.md lists it.
std::string options_markdown() {
    std::string out = "| option | JavaScript | default | range | |\n|---|---|---|---|---|\n";
    for (const TranslationOptionRow& row : translation_option_table()) {
        if (!row.flag) continue;
        std::string flag = row.flag[0] == '!' ? row.flag + 1 : row.flag;
        for (size_t at = flag.find(','); at != std::string::npos; at = flag.find(',', at + 2)) flag.replace(at, 1, ", ");
        std::string help = row.help;
        for (size_t at = help.find('|'); at != std::string::npos; at = help.find('|', at + 2)) help.replace(at, 1, "\\|");
        const bool boolean = row.kind == OptionKind::boolean;
        out += "| `" + flag + "` | " + (row.js ? "`" + std::string(row.js) + "`" : "") + " | " +
               (boolean ? "" : row.default_text()) + " | " + row.range_text() + " | " + help +
               (row.translate_only ? " (translate only)" : "") + " |\n";
    }
    return out;
}

const char* const kDocsBegin = "<!-- translation options: written from core/translate/option_table.cpp";
const char* const kDocsEnd = "<!-- end of translation options -->";

}  // namespace

TEST_CASE("translation flags: every row a flag of translate and eval, with the table's help text and default") {
    for (TranslationFlags which : {TranslationFlags::translate, TranslationFlags::eval}) {
        CAPTURE(which == TranslationFlags::translate ? "translate" : "eval");
        CLI::App app;
        TranslationOptions options;
        add_translation_flags(&app, options, which);
        for (const TranslationOptionRow& row : translation_option_table()) {
            CAPTURE(row.field);
            if (!in_command(row, which)) {
                if (row.flag) CHECK(app.get_option_no_throw(long_flag(row)) == nullptr);
                continue;
            }
            const CLI::Option* option = app.get_option_no_throw(long_flag(row));
            REQUIRE(option != nullptr);
            CHECK(option->get_description() == row.help_text());
        }
        app.parse(std::vector<std::string>{});
        for (const TranslationOptionRow& row : translation_option_table()) CHECK(row.get(options) == row.default_value());
        // Each flag sets its own field, and only that one.
        for (const TranslationOptionRow& row : translation_option_table()) {
            if (!in_command(row, which)) continue;
            CAPTURE(row.field);
            CLI::App one;
            TranslationOptions given;
            add_translation_flags(&one, given, which);
            const double value = row.kind == OptionKind::boolean ? 0 : row.max;
            if (row.kind == OptionKind::boolean)
                CHECK(parse_error(one, {long_flag(row)}) == "");
            else
                CHECK(parse_error(one, {long_flag(row), option_number_text(value)}) == "");
            for (const TranslationOptionRow& other : translation_option_table())
                CHECK(other.get(given) == (&other == &row ? value : other.default_value()));
        }
    }
}

TEST_CASE("translation flags: eval checks each number against the table's bounds as it parses, translate leaves it "
          "to validate_options") {
    for (const TranslationOptionRow& row : translation_option_table()) {
        if (row.kind == OptionKind::boolean || !in_command(row, TranslationFlags::eval)) continue;
        CAPTURE(row.field);
        const std::string flag = long_flag(row);
        const double step = row.kind == OptionKind::integer ? 1 : 0.5;
        const std::string above = option_number_text(row.max + std::max(step, std::fabs(row.max) * 0.5));
        const std::string below = option_number_text(row.min - std::max(step, std::fabs(row.min) * 0.5));
        const auto error = [&](TranslationFlags which, const std::string& value) {
            CLI::App app;
            TranslationOptions o;
            add_translation_flags(&app, o, which);
            return parse_error(app, {flag, value});
        };
        CHECK(error(TranslationFlags::eval, option_number_text(row.max)) == "");
        CHECK(error(TranslationFlags::eval, above) ==
              flag + ": must be at most " + option_number_text(row.max) + ", got " + above);
        if (row.above_min)
            CHECK(error(TranslationFlags::eval, option_number_text(row.min)) ==
                  flag + ": must be greater than " + option_number_text(row.min) + ", got " + option_number_text(row.min));
        else
            CHECK(error(TranslationFlags::eval, below) ==
                  flag + ": must be at least " + option_number_text(row.min) + ", got " + below);
        CHECK(error(TranslationFlags::eval, "inf") == flag + ": must be a finite number, got inf");
        CHECK(error(TranslationFlags::translate, above) == "");
    }
}

TEST_CASE("attend translate --help and attend eval --help: every flag of the table with its help text") {
    for (const char* command : {"translate", "eval"}) {
        CAPTURE(command);
        const Run help = run_attend(std::string(command) + " --help");
        REQUIRE(help.status == 0);
        const TranslationFlags which = std::string(command) == "translate" ? TranslationFlags::translate
                                                                            : TranslationFlags::eval;
        for (const TranslationOptionRow& row : translation_option_table()) {
            if (!row.flag) continue;
            CAPTURE(row.field);
            CHECK((help.output.find(long_flag(row)) != std::string::npos) == in_command(row, which));
            if (in_command(row, which)) CHECK(help.output.find(row.help_text()) != std::string::npos);
        }
    }
}

TEST_CASE("docs/cli.md: the translation options are the table's") {
    const std::string path = std::string(ATTEND_SOURCE_DIR) + "/docs/cli.md";
    std::string doc = read_text(path);
    const size_t begin = doc.find(kDocsBegin);
    REQUIRE(begin != std::string::npos);
    const size_t table = doc.find('\n', begin) + 1;
    size_t end = doc.find(kDocsEnd, table);
    REQUIRE(end != std::string::npos);
    const std::string want = options_markdown();
    const char* write = std::getenv("ATTEND_WRITE_DOCS");
    if (write && std::string(write) == "1" && doc.substr(table, end - table) != want) {
        doc.replace(table, end - table, want);
        end = table + want.size();
        std::ofstream(path, std::ios::binary) << doc;
        MESSAGE("wrote the translation options into " << path);
    }
    CHECK_MESSAGE(doc.substr(table, end - table) == want,
                  "docs/cli.md's translation options differ from the table: ATTEND_WRITE_DOCS=1 "
                  "build/bin/test_native -tc='docs/cli.md*' writes them");
}
