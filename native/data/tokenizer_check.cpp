#include "data/tokenizer_check.h"

#include "data/multi30k.h"
#include "data/nonbreaking_prefix_file.h"
#include "data/parallel_text.h"
#include "text/moses_pipeline.h"

namespace attend {

TokenizerCheck check_multi30k_tokenizer(const std::string& data_dir, const std::string& split, Lang lang,
                                        std::size_t max_mismatches) {
    // Raw and tok files of one language are line-aligned, exactly like a translation pair.
    ParallelText files = load_parallel_text(multi30k_path(data_dir, split, lang, TextForm::raw),
                                            multi30k_path(data_dir, split, lang, TextForm::tok));
    NonbreakingPrefixes prefixes = load_nonbreaking_prefixes(data_dir, lang);
    TokenizerCheck check;
    check.split = split;
    check.lang = lang;
    check.lines = files.source.size();
    for (std::size_t i = 0; i < files.source.size(); ++i) {
        std::string produced = moses_preprocess_line(files.source[i], lang, prefixes);
        if (produced == files.target[i]) {
            ++check.matching;
        } else if (check.mismatches.size() < max_mismatches) {
            check.mismatches.push_back({i + 1, files.source[i], files.target[i], produced});
        }
    }
    return check;
}

}  // namespace attend
