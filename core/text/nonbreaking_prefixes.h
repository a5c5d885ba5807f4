// Moses' non-breaking prefixes: words such as "Mr" or "z.B" after which a period does not end a sentence,
// so the tokenizer leaves "Mr." whole. The lists are data (../shared/data/nonbreaking_prefixes, or the
// tokenizer description in a model file's metadata); the core parses their text and never opens files.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

namespace attend {

class NonbreakingPrefixes {
public:
    enum class Kind { none, always, numeric_only };  // numeric_only: non-breaking only before a number

    NonbreakingPrefixes() = default;
    // The text of a nonbreaking_prefix.<lang> file: one prefix a line, '#' starts a comment line, and
    // "prefix #NUMERIC_ONLY#" marks a numeric-only prefix (parsed exactly as tokenizer.perl does).
    static NonbreakingPrefixes parse(std::string_view file_text);

    Kind kind(const std::string& prefix) const;
    void add(const std::string& prefix, Kind kind);
    std::size_t size() const { return kinds_.size(); }
    bool empty() const { return kinds_.empty(); }

    friend void to_json(nlohmann::json& j, const NonbreakingPrefixes& prefixes);
    friend void from_json(const nlohmann::json& j, NonbreakingPrefixes& prefixes);

private:
    std::unordered_map<std::string, Kind> kinds_;
};

}  // namespace attend
