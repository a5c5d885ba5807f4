#include "text/vocab.h"

#include <algorithm>

#include "error.h"

namespace attend {

Vocab::Vocab() { add(kUnk); }

void Vocab::add(const std::string& token) {
    if (token_to_idx_.emplace(token, static_cast<int>(idx_to_token_.size())).second) idx_to_token_.push_back(token);
}

Vocab::Vocab(const std::vector<std::vector<std::string>>& lines, std::int64_t min_freq,
             const std::vector<std::string>& reserved_tokens) {
    std::unordered_map<std::string, std::size_t> position;
    for (const auto& line : lines) {
        for (const std::string& token : line) {
            auto [it, inserted] = position.emplace(token, token_freqs_.size());
            if (inserted) token_freqs_.emplace_back(token, 0);
            ++token_freqs_[it->second].second;
        }
    }
    std::stable_sort(token_freqs_.begin(), token_freqs_.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    add(kUnk);
    for (const std::string& token : reserved_tokens) add(token);
    for (const auto& [token, freq] : token_freqs_) {
        if (freq < min_freq) break;
        add(token);
    }
}

Vocab Vocab::from_tokens(const std::vector<std::string>& tokens, std::int64_t min_freq,
                         const std::vector<std::string>& reserved_tokens) {
    return Vocab(std::vector<std::vector<std::string>>{tokens}, min_freq, reserved_tokens);
}

Vocab Vocab::from_id_order(std::vector<std::string> tokens) {
    if (tokens.empty() || tokens[0] != kUnk)
        throw Error("vocabulary: token 0 is " + (tokens.empty() ? std::string("missing") : "'" + tokens[0] + "'") +
                    " (expected '<unk>')");
    Vocab vocab;
    vocab.idx_to_token_.clear();
    vocab.token_to_idx_.clear();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (!vocab.token_to_idx_.emplace(tokens[i], static_cast<int>(i)).second)
            throw Error("vocabulary: token '" + tokens[i] + "' appears twice (ids " +
                        std::to_string(vocab.token_to_idx_[tokens[i]]) + " and " + std::to_string(i) + ")");
        vocab.idx_to_token_.push_back(tokens[i]);
    }
    return vocab;
}

int Vocab::operator[](const std::string& token) const {
    auto it = token_to_idx_.find(token);
    return it == token_to_idx_.end() ? unk() : it->second;
}

std::vector<int> Vocab::ids(const std::vector<std::string>& tokens) const {
    std::vector<int> out;
    out.reserve(tokens.size());
    for (const std::string& token : tokens) out.push_back((*this)[token]);
    return out;
}

const std::string& Vocab::token(int id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= idx_to_token_.size())
        throw Error("vocabulary: id " + std::to_string(id) + " is out of range (expected 0.." +
                    std::to_string(idx_to_token_.size() - 1) + ")");
    return idx_to_token_[id];
}

std::vector<std::string> Vocab::tokens(const std::vector<int>& ids) const {
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (int id : ids) out.push_back(token(id));
    return out;
}

void to_json(nlohmann::json& j, const Vocab& vocab) { j = nlohmann::json{{"tokens", vocab.idx_to_token_}}; }

void from_json(const nlohmann::json& j, Vocab& vocab) {
    if (!j.is_object() || !j.contains("tokens") || !j["tokens"].is_array())
        throw Error("vocabulary: expected an object with a 'tokens' array");
    std::vector<std::string> tokens;
    for (const auto& token : j["tokens"]) {
        if (!token.is_string()) throw Error("vocabulary: token " + token.dump() + " is not a string");
        tokens.push_back(token.get<std::string>());
    }
    vocab = Vocab::from_id_order(std::move(tokens));
}

}  // namespace attend
