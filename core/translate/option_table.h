// The TranslationOptions a user sets, one row each: the C++ field, its name in the JavaScript API, its `attend
// translate` / `attend eval` flag, its bounds and its help text. The CLI registers its flags from this table, the
// WebAssembly module parses and bounds its JSON options with it (and hands it to attend.js), and docs/cli.md's
// option list is written from it; the default of a row is TranslationOptions' own initializer, read through the
// field, so that it is said in one place. validate_options() enforces the same bounds (tests hold it to them).
#pragma once
#include "attend/translation.h"

#include <string>
#include <vector>

namespace attend {

enum class OptionKind { integer, number, boolean };

struct TranslationOptionRow {
    const char* field;  // the TranslationOptions member, as written in C++
    const char* js;     // its name in the JavaScript API (attend.js); nullptr: not one of its options
    // Its CLI11 name in `attend translate` and `attend eval`: "-b,--beam"; a boolean's flag turns it off
    // ("--no-copy-through"). nullptr: no flag of its own (return_attention: `attend translate --attention FILE`).
    const char* flag;
    OptionKind kind;
    int TranslationOptions::*int_field;
    float TranslationOptions::*float_field;
    bool TranslationOptions::*bool_field;
    // A number's bounds: [min, max], or (min, max] when above_min. The core's own limits (kMaxBeamSize, ...); a
    // penalty the core asks only to be finite is held well inside float (JavaScript numbers are doubles).
    double min, max;
    bool above_min;
    bool model_default;   // a model file may name its own (Translator::default_options): the default is the fallback
    bool translate_only;  // only `attend translate` has the flag (max_batch_size: eval translates one at a time)
    const char* help;     // what the flag does, for --help and docs/cli.md

    double get(const TranslationOptions& options) const;
    void set(TranslationOptions& options, double value) const;  // a boolean: value != 0
    double default_value() const { return get(TranslationOptions{}); }
    // "1..64", "above 0..1000000" (min excluded), "" for a boolean.
    std::string range_text() const;
    // The default as help shows it: "5", "0.6", "true"; a model_default row "the model's own, else 0.6".
    std::string default_text() const;
    // help with the default and the range: what --help prints for the flag and docs/cli.md lists.
    std::string help_text() const;
};

// Every row: the number options in the JavaScript API's order (attend.js's optionBounds), then the booleans, then
// the options without a JavaScript name.
const std::vector<TranslationOptionRow>& translation_option_table();

// A number as the table writes it: a float's digits (0.6, not 0.6000000238), 1000000 in full.
std::string option_number_text(double value);

}  // namespace attend
