// The Multi30K preprocessing in one call: lowercase -> normalize punctuation -> Moses tokenize, the steps
// that produced the official tok/*.lc.norm.tok.* files.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "text/lang.h"
#include "text/nonbreaking_prefixes.h"
#include "text/tokenizer.h"

namespace attend {

struct MosesPipelineOptions {
    bool lowercase = true;
    bool normalize_punctuation = true;
    TokenizeOptions tokenize;
};

std::vector<std::string> moses_preprocess(std::string_view raw_line, Lang lang, const NonbreakingPrefixes& prefixes,
                                          const MosesPipelineOptions& options = {});
std::string moses_preprocess_line(std::string_view raw_line, Lang lang, const NonbreakingPrefixes& prefixes,
                                  const MosesPipelineOptions& options = {});

}  // namespace attend
