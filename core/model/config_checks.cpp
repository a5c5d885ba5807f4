#include "model/config_checks.h"

#include "error.h"

#include <limits>
#include <string>

namespace attend {

void check_config_range(const char* what, const char* field, long long value, long long lo, long long hi) {
    if (value < lo || value > hi)
        throw Error(std::string(what) + ": " + field + " is " + std::to_string(value) + ", expected " +
                    std::to_string(lo) + ".." + std::to_string(hi));
}

int config_int(const char* what, const char* field, const nlohmann::json& value) {
    const std::string where = std::string(what) + ": field '" + field + "'";
    if (!value.is_number())
        throw Error(where + " has the wrong type (" + value.type_name() + ", expected an integer)");
    if (value.is_number_float()) throw Error(where + " is " + value.dump() + ", expected an integer");
    const bool fits = value.is_number_unsigned()
                          ? value.get<uint64_t>() <= uint64_t(std::numeric_limits<int>::max())
                          : value.get<int64_t>() >= std::numeric_limits<int>::min() &&
                                value.get<int64_t>() <= std::numeric_limits<int>::max();
    if (!fits) throw Error(where + " is " + value.dump() + ", beyond the range of a 32-bit integer");
    return value.get<int>();
}

}  // namespace attend
