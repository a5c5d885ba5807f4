#include "data/data_dir.h"

#include <cstdlib>

namespace attend {

std::string default_data_dir() {
    if (const char* env = std::getenv("ATTEND_DATA"); env && *env) return env;
    return std::string(ATTEND_SOURCE_DIR) + "/../shared/data";
}

}  // namespace attend
