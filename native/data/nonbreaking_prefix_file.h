// Loads Moses' non-breaking prefix list for a language from DATA/nonbreaking_prefixes/nonbreaking_prefix.LANG.
#pragma once
#include <string>

#include "text/lang.h"
#include "text/nonbreaking_prefixes.h"

namespace attend {

std::string nonbreaking_prefix_path(const std::string& data_dir, Lang lang);
NonbreakingPrefixes load_nonbreaking_prefixes(const std::string& data_dir, Lang lang);

}  // namespace attend
