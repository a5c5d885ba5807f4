#include "data/multi30k.h"

#include <algorithm>

#include "error.h"

namespace attend {

const std::vector<std::string>& multi30k_splits() {
    static const std::vector<std::string> splits = {"train", "val", "test_2016_flickr", "test_2017_flickr",
                                                    "test_2017_mscoco"};
    return splits;
}

std::string multi30k_path(const std::string& data_dir, const std::string& split, Lang lang, TextForm form) {
    const auto& splits = multi30k_splits();
    if (std::find(splits.begin(), splits.end(), split) == splits.end()) {
        std::string known;
        for (const auto& s : splits) known += (known.empty() ? "" : ", ") + s;
        throw Error("Multi30K split '" + split + "' does not exist (expected one of: " + known + ")");
    }
    std::string base = data_dir + "/multi30k/";
    if (form == TextForm::tok) return base + "tok/" + split + ".lc.norm.tok." + lang_code(lang) + ".gz";
    return base + split + "." + lang_code(lang) + ".gz";
}

ParallelText load_multi30k(const std::string& data_dir, const std::string& split, Lang source, Lang target,
                           TextForm form) {
    if (source == target) throw Error("Multi30K: source and target language are both '" + lang_code(source) + "'");
    return load_parallel_text(multi30k_path(data_dir, split, source, form),
                              multi30k_path(data_dir, split, target, form));
}

}  // namespace attend
