// Token <-> id vocabulary with d2l's semantics: id 0 is "<unk>" (unknown tokens map to it), then the
// reserved tokens (e.g. <pad> <bos> <eos>) in the given order, then the corpus tokens by descending
// frequency (ties keep first-seen order, as Python's stable sort does), dropping those rarer than min_freq.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attend {

class Vocab {
public:
    static constexpr const char* kUnk = "<unk>";

    Vocab();  // only "<unk>"
    Vocab(const std::vector<std::vector<std::string>>& lines, std::int64_t min_freq = 0,
          const std::vector<std::string>& reserved_tokens = {});
    static Vocab from_tokens(const std::vector<std::string>& tokens, std::int64_t min_freq = 0,
                             const std::vector<std::string>& reserved_tokens = {});
    // A vocabulary with exactly these tokens as ids 0..n-1 (tokens[0] must be "<unk>").
    static Vocab from_id_order(std::vector<std::string> tokens);

    std::size_t size() const { return idx_to_token_.size(); }
    int unk() const { return 0; }
    bool contains(const std::string& token) const { return token_to_idx_.count(token) > 0; }

    int operator[](const std::string& token) const;  // unknown -> 0
    std::vector<int> ids(const std::vector<std::string>& tokens) const;
    const std::string& token(int id) const;  // throws attend::Error when out of range
    std::vector<std::string> tokens(const std::vector<int>& ids) const;

    // Corpus tokens with their counts, most frequent first (d2l's token_freqs); empty after from_json.
    const std::vector<std::pair<std::string, std::int64_t>>& token_freqs() const { return token_freqs_; }
    const std::vector<std::string>& id_to_token() const { return idx_to_token_; }

    // {"tokens": [id order]}; from_json checks that tokens[0] is "<unk>" and no token repeats.
    friend void to_json(nlohmann::json& j, const Vocab& vocab);
    friend void from_json(const nlohmann::json& j, Vocab& vocab);

private:
    void add(const std::string& token);
    std::vector<std::string> idx_to_token_;
    std::unordered_map<std::string, int> token_to_idx_;
    std::vector<std::pair<std::string, std::int64_t>> token_freqs_;
};

}  // namespace attend
