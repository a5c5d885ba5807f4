// Multi30K (English image descriptions with German and French translations): any pair among en/de/fr, any
// split, raw (cased, untokenized) or tok (the official lowercased, normalized, Moses-tokenized files).
#pragma once
#include <string>
#include <vector>

#include "data/parallel_text.h"
#include "text/lang.h"

namespace attend {

enum class TextForm { raw, tok };

// train, val, test_2016_flickr, test_2017_flickr, test_2017_mscoco
const std::vector<std::string>& multi30k_splits();

// DATA/multi30k/SPLIT.LANG.gz or DATA/multi30k/tok/SPLIT.lc.norm.tok.LANG.gz; an unknown split throws
// attend::Error listing the known ones.
std::string multi30k_path(const std::string& data_dir, const std::string& split, Lang lang, TextForm form);

// Both sides of a split; errors name the missing file, or both files and their line counts.
ParallelText load_multi30k(const std::string& data_dir, const std::string& split, Lang source, Lang target,
                           TextForm form);

}  // namespace attend
