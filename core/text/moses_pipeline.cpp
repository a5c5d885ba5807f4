#include "text/moses_pipeline.h"

#include "text/case_mapping.h"
#include "text/normalize_punctuation.h"

namespace attend {

std::string moses_preprocess_line(std::string_view raw_line, Lang lang, const NonbreakingPrefixes& prefixes,
                                  const MosesPipelineOptions& options) {
    std::string text = options.lowercase ? lowercase(raw_line) : std::string(raw_line);
    if (options.normalize_punctuation) text = normalize_punctuation(text, lang);
    return tokenize_line(text, lang, prefixes, options.tokenize);
}

std::vector<std::string> moses_preprocess(std::string_view raw_line, Lang lang, const NonbreakingPrefixes& prefixes,
                                          const MosesPipelineOptions& options) {
    std::string text = options.lowercase ? lowercase(raw_line) : std::string(raw_line);
    if (options.normalize_punctuation) text = normalize_punctuation(text, lang);
    return tokenize(text, lang, prefixes, options.tokenize);
}

}  // namespace attend
