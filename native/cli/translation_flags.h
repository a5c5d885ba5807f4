// The translation options' flags of `attend translate` and `attend eval`, registered from the option table
// (translate/option_table.h): the same names, help texts and defaults in both commands.
#pragma once
#include "cli/option_checks.h"
#include "translate/option_table.h"

#include <CLI/CLI.hpp>

#include <string>

namespace attend::cli {

// translate: every row with a flag; its values go to validate_options(), whose messages ("beam size must be between
// 1 and 64, got 0") are what `attend translate` has always said. eval: every row but the translate-only ones, each
// number checked as it is parsed against the table's bounds ("--beam: must be at least 1, got 0"), before a model
// loads. Either way the bounds are the table's: validate_options() holds to them.
enum class TranslationFlags { translate, eval };

// The long name of a row's flag: "--beam" of "-b,--beam", "--no-copy-through" of "!--no-copy-through".
inline std::string long_flag(const TranslationOptionRow& row) {
    const std::string names = row.flag;
    const std::size_t at = names.rfind("--");
    return names.substr(at);
}

inline void add_translation_flags(CLI::App* cmd, TranslationOptions& options, TranslationFlags which) {
    for (const TranslationOptionRow& row : translation_option_table()) {
        if (!row.flag || (row.translate_only && which == TranslationFlags::eval)) continue;
        CLI::Option* option = nullptr;
        switch (row.kind) {
            case OptionKind::boolean:
                cmd->add_flag(row.flag, options.*row.bool_field, row.help_text());
                continue;
            case OptionKind::integer:
                option = cmd->add_option(row.flag, options.*row.int_field, row.help_text());
                break;
            case OptionKind::number:
                option = cmd->add_option(row.flag, options.*row.float_field, row.help_text());
                break;
        }
        if (which == TranslationFlags::eval) option->check(in_range(row.min, row.max, row.above_min));
    }
}

}  // namespace attend::cli
