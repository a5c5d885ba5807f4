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

void check_config_fraction(const char* what, const char* field, float value) {
    if (!(value >= 0.0f && value < 1.0f))
        throw Error(std::string(what) + ": " + field + " is " + std::to_string(value) + ", expected in [0, 1)");
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

namespace {

template <class T>
void typed_field(const char* what, const nlohmann::json& j, const char* key, T& value, bool (nlohmann::json::*is)() const,
                 const char* expected) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if (!((*it).*is)())
        throw Error(std::string(what) + ": field '" + key + "' has the wrong type (" + it->type_name() + ", expected " +
                    expected + ")");
    it->get_to(value);
}

}  // namespace

void config_field(const char* what, const nlohmann::json& j, const char* key, int& value) {
    const auto it = j.find(key);
    if (it != j.end()) value = config_int(what, key, *it);
}

void config_field(const char* what, const nlohmann::json& j, const char* key, float& value) {
    typed_field(what, j, key, value, &nlohmann::json::is_number, "a number");
}

void config_field(const char* what, const nlohmann::json& j, const char* key, bool& value) {
    typed_field(what, j, key, value, &nlohmann::json::is_boolean, "a boolean");
}

void config_field(const char* what, const nlohmann::json& j, const char* key, std::string& value) {
    typed_field(what, j, key, value, &nlohmann::json::is_string, "a string");
}

}  // namespace attend
