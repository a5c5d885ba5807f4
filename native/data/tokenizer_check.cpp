#include "data/tokenizer_check.h"

#include "data/multi30k.h"
#include "data/nonbreaking_prefix_file.h"
#include "data/parallel_text.h"
#include "data/text_file.h"
#include "text/case_mapping.h"
#include "text/detokenizer.h"
#include "text/moses_pipeline.h"

namespace attend {
namespace {

void record(TokenizerCheck& check, std::size_t index, const std::string& raw, const std::string& expected,
            std::string produced, std::size_t max_mismatches) {
    if (produced == expected) {
        ++check.matching;
    } else if (check.mismatches.size() < max_mismatches) {
        check.mismatches.push_back({index + 1, raw, expected, std::move(produced)});
    }
}

}  // namespace

TokenizerCheck check_multi30k_tokenizer(const std::string& data_dir, const std::string& split, Lang lang,
                                        std::size_t max_mismatches, bool cased) {
    // Raw and tok files of one language are line-aligned, exactly like a translation pair.
    ParallelText files = load_parallel_text(multi30k_path(data_dir, split, lang, TextForm::raw),
                                            multi30k_path(data_dir, split, lang, TextForm::tok));
    NonbreakingPrefixes prefixes = load_nonbreaking_prefixes(data_dir, lang);
    MosesPipelineOptions options;
    options.lowercase = !cased;
    TokenizerCheck check;
    check.split = split;
    check.lang = lang;
    check.lines = files.source.size();
    for (std::size_t i = 0; i < files.source.size(); ++i) {
        std::string produced = moses_preprocess_line(files.source[i], lang, prefixes, options);
        record(check, i, files.source[i], files.target[i], cased ? lowercase(produced) : produced, max_mismatches);
    }
    return check;
}

TokenizerCheck check_multi30k_round_trip(const std::string& data_dir, const std::string& split, Lang lang,
                                         std::size_t max_mismatches) {
    std::vector<std::string> raw = read_lines(multi30k_path(data_dir, split, lang, TextForm::raw));
    NonbreakingPrefixes prefixes = load_nonbreaking_prefixes(data_dir, lang);
    MosesPipelineOptions options;
    options.lowercase = false;
    DetokenizeOptions keep_case;
    keep_case.capitalize_first = false;
    TokenizerCheck check;
    check.split = split;
    check.lang = lang;
    check.lines = raw.size();
    for (std::size_t i = 0; i < raw.size(); ++i) {
        std::string tokens = moses_preprocess_line(raw[i], lang, prefixes, options);
        record(check, i, tokens, raw[i], detokenize(tokens, lang, keep_case), max_mismatches);
    }
    return check;
}

}  // namespace attend
