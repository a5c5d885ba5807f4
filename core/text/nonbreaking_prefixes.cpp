#include "text/nonbreaking_prefixes.h"

#include <algorithm>
#include <vector>

#include "error.h"

namespace attend {

NonbreakingPrefixes NonbreakingPrefixes::parse(std::string_view file_text) {
    NonbreakingPrefixes prefixes;
    std::size_t start = 0;
    while (start < file_text.size()) {
        std::size_t end = file_text.find('\n', start);
        if (end == std::string_view::npos) end = file_text.size();
        std::string item(file_text.substr(start, end - start));
        start = end + 1;
        if (!item.empty() && item.back() == '\r') item.pop_back();
        if (item.empty() || item[0] == '#') continue;
        // tokenizer.perl: /(.*)[\s]+(\#NUMERIC_ONLY\#)/ — the greedy (.*) keeps all but the last run of spaces.
        static const std::string kMarker = "#NUMERIC_ONLY#";
        std::size_t marker = item.rfind(kMarker);
        std::size_t word_end = marker;
        while (marker != std::string::npos && word_end > 0 && (item[word_end - 1] == ' ' || item[word_end - 1] == '\t'))
            --word_end;
        if (marker != std::string::npos && word_end < marker)
            prefixes.add(item.substr(0, word_end), Kind::numeric_only);
        else
            prefixes.add(item, Kind::always);
    }
    return prefixes;
}

NonbreakingPrefixes::Kind NonbreakingPrefixes::kind(const std::string& prefix) const {
    auto it = kinds_.find(prefix);
    return it == kinds_.end() ? Kind::none : it->second;
}

void NonbreakingPrefixes::add(const std::string& prefix, Kind kind) { kinds_[prefix] = kind; }

void to_json(nlohmann::json& j, const NonbreakingPrefixes& prefixes) {
    std::vector<std::string> always, numeric_only;
    for (const auto& [prefix, kind] : prefixes.kinds_)
        (kind == NonbreakingPrefixes::Kind::numeric_only ? numeric_only : always).push_back(prefix);
    std::sort(always.begin(), always.end());
    std::sort(numeric_only.begin(), numeric_only.end());
    j = nlohmann::json{{"always", always}, {"numeric_only", numeric_only}};
}

void from_json(const nlohmann::json& j, NonbreakingPrefixes& prefixes) {
    if (!j.is_object() || !j.contains("always") || !j.contains("numeric_only") || !j["always"].is_array() ||
        !j["numeric_only"].is_array())
        throw Error("nonbreaking prefixes: expected an object with arrays 'always' and 'numeric_only'");
    prefixes = NonbreakingPrefixes();
    for (const auto& item : j["always"]) prefixes.add(item.get<std::string>(), NonbreakingPrefixes::Kind::always);
    for (const auto& item : j["numeric_only"])
        prefixes.add(item.get<std::string>(), NonbreakingPrefixes::Kind::numeric_only);
}

}  // namespace attend
