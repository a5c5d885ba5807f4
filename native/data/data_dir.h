// Where the shared data sets live: $ATTEND_DATA when set, else ../shared/data relative to the repository root.
#pragma once
#include <string>

namespace attend {

std::string default_data_dir();

}  // namespace attend
