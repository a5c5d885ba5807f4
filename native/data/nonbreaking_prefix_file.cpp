#include "data/nonbreaking_prefix_file.h"

#include "data/text_file.h"

namespace attend {

std::string nonbreaking_prefix_path(const std::string& data_dir, Lang lang) {
    return data_dir + "/nonbreaking_prefixes/nonbreaking_prefix." + lang_code(lang);
}

NonbreakingPrefixes load_nonbreaking_prefixes(const std::string& data_dir, Lang lang) {
    return NonbreakingPrefixes::parse(read_file_bytes(nonbreaking_prefix_path(data_dir, lang)));
}

}  // namespace attend
