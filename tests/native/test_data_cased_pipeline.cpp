// The cased text pipeline on the real Multi30K files (../shared/data or $ATTEND_DATA): every split and
// language, tokenized without lowercasing, splits where the official lowercase tok/ files split, and the
// detokenizer turns those tokens back into the raw line a person wrote.
#include <doctest/doctest.h>

#include <string>

#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/text_file.h"
#include "data/tokenizer_check.h"

using namespace attend;

namespace {

std::string data_dir() {
    std::string dir = default_data_dir();
    INFO("data directory " << dir << " (set ATTEND_DATA to point elsewhere)");
    REQUIRE(file_exists(dir + "/multi30k/val.en.gz"));
    return dir;
}

void report(const TokenizerCheck& check, const std::string& what) {
    MESSAGE(what << " " << check.split << "." << lang_code(check.lang) << ": " << check.matching << " of "
                 << check.lines << " lines (" << 100.0 * check.rate() << "%)");
}

}  // namespace

TEST_CASE("cased pipeline: tokens lowercased equal the official tok/ files on >= 99.5% of lines, every file") {
    const std::string data = data_dir();
    for (const std::string& split : multi30k_splits()) {
        for (Lang lang : {Lang::en, Lang::de, Lang::fr}) {
            TokenizerCheck check = check_multi30k_tokenizer(data, split, lang, 3, true);
            CAPTURE(split);
            CAPTURE(lang_code(lang));
            for (const auto& m : check.mismatches)
                INFO("line " << m.line << ": expected '" << m.expected << "', got '" << m.produced << "'");
            report(check, "cased tokens");
            CHECK(check.lines > 400);
            CHECK(check.rate() >= 0.995);
        }
    }
}

TEST_CASE("cased pipeline: detokenize(tokenize(raw)) == raw on >= 95% of lines, every file") {
    const std::string data = data_dir();
    for (const std::string& split : multi30k_splits()) {
        for (Lang lang : {Lang::en, Lang::de, Lang::fr}) {
            TokenizerCheck check = check_multi30k_round_trip(data, split, lang, 3);
            CAPTURE(split);
            CAPTURE(lang_code(lang));
            for (const auto& m : check.mismatches)
                INFO("line " << m.line << ": tokens '" << m.raw << "', raw '" << m.expected << "', detokenized '"
                             << m.produced << "'");
            report(check, "round trip");
            CHECK(check.lines > 400);
            CHECK(check.rate() >= 0.95);
        }
    }
}
