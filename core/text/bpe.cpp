#include "text/bpe.h"

#include <climits>
#include <unordered_map>

#include "error.h"
#include "text/utf8.h"

namespace attend {
namespace {

std::string pair_key(const std::string& first, const std::string& second) { return first + ' ' + second; }

std::vector<std::string> split_tokens(std::string_view line) {
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start < line.size()) {
        std::size_t end = line.find(' ', start);
        if (end == std::string_view::npos) end = line.size();
        if (end > start) tokens.emplace_back(line.substr(start, end - start));
        start = end + 1;
    }
    return tokens;
}

std::string join(const std::vector<std::string>& tokens) {
    std::string out;
    for (const std::string& token : tokens) {
        if (!out.empty()) out.push_back(' ');
        out += token;
    }
    return out;
}

using WordCache = std::unordered_map<std::string, std::vector<std::string>>;

void append_with_markers(std::vector<std::string>& out, const std::vector<std::string>& pieces) {
    for (std::size_t i = 0; i + 1 < pieces.size(); ++i) out.push_back(pieces[i] + Bpe::kSeparator);
    if (!pieces.empty()) out.push_back(pieces.back());
}

}  // namespace

void add_word_counts(WordCounts& counts, const std::vector<std::string>& lines) {
    std::unordered_map<std::string, std::size_t> position;
    position.reserve(counts.size() + lines.size());
    for (std::size_t i = 0; i < counts.size(); ++i) position.emplace(counts[i].first, i);
    for (const std::string& line : lines) {
        std::size_t start = 0;
        while (start < line.size()) {
            std::size_t end = line.find(' ', start);
            if (end == std::string::npos) end = line.size();
            if (end > start) {
                std::string word = line.substr(start, end - start);
                auto [it, inserted] = position.emplace(word, counts.size());
                if (inserted) counts.emplace_back(std::move(word), 0);
                ++counts[it->second].second;
            }
            start = end + 1;
        }
    }
}

WordCounts count_words(const std::vector<std::string>& lines) {
    WordCounts counts;
    add_word_counts(counts, lines);
    return counts;
}

Bpe::Bpe(std::vector<BpeMerge> merges) : merges_(std::move(merges)) { build_ranks(); }

void Bpe::build_ranks() {
    ranks_.clear();
    ranks_.reserve(merges_.size() * 2);
    for (std::size_t i = 0; i < merges_.size(); ++i)
        ranks_.emplace(pair_key(merges_[i].first, merges_[i].second), static_cast<int>(i));
}

std::vector<std::string> Bpe::encode_word(std::string_view word) const {
    std::u32string chars = utf8_decode(word);
    if (chars.empty()) return {};
    if (chars.size() == 1) return {std::string(word)};  // subword-nmt leaves one-character words alone
    std::vector<std::string> symbols;
    symbols.reserve(chars.size());
    for (char32_t c : chars) symbols.push_back(utf8_encode(std::u32string(1, c)));
    symbols.back() += kEndOfWord;

    // Repeatedly merge the pair with the lowest rank, at every position it occurs (left to right).
    std::string key;
    while (symbols.size() > 1) {
        int best_rank = INT_MAX;
        std::size_t best_position = 0;
        for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
            key.assign(symbols[i]).push_back(' ');
            key += symbols[i + 1];
            auto it = ranks_.find(key);
            if (it != ranks_.end() && it->second < best_rank) best_rank = it->second, best_position = i;
        }
        if (best_rank == INT_MAX) break;
        const std::string first = symbols[best_position], second = symbols[best_position + 1];
        std::vector<std::string> merged;
        merged.reserve(symbols.size());
        for (std::size_t i = 0; i < symbols.size();) {
            if (i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second) {
                merged.push_back(first + second);
                i += 2;
            } else {
                merged.push_back(std::move(symbols[i++]));
            }
        }
        symbols.swap(merged);
    }
    std::string& last = symbols.back();
    const std::size_t marker = std::char_traits<char>::length(kEndOfWord);
    if (last == kEndOfWord)
        symbols.pop_back();
    else if (last.size() > marker && last.compare(last.size() - marker, marker, kEndOfWord) == 0)
        last.resize(last.size() - marker);
    return symbols;
}

std::vector<std::string> Bpe::apply(const std::vector<std::string>& tokens) const {
    std::vector<std::string> out;
    out.reserve(tokens.size() * 2);
    for (const std::string& token : tokens)
        if (!token.empty()) append_with_markers(out, encode_word(token));
    return out;
}

std::string Bpe::apply_line(std::string_view line) const { return join(apply(split_tokens(line))); }

std::vector<std::string> Bpe::apply_lines(const std::vector<std::string>& lines) const {
    WordCache cache;
    std::vector<std::string> out;
    out.reserve(lines.size());
    std::vector<std::string> pieces;
    for (const std::string& line : lines) {
        pieces.clear();
        for (const std::string& token : split_tokens(line)) {
            auto it = cache.find(token);
            if (it == cache.end()) it = cache.emplace(token, encode_word(token)).first;
            append_with_markers(pieces, it->second);
        }
        out.push_back(join(pieces));
    }
    return out;
}

std::string Bpe::to_codes_text() const {
    std::string text = "#version: 0.2\n";
    for (const BpeMerge& merge : merges_) text += merge.first + ' ' + merge.second + '\n';
    return text;
}

Bpe Bpe::from_codes_text(std::string_view text) {
    std::vector<BpeMerge> merges;
    std::size_t start = 0, line_number = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line_number == 1 && line.substr(0, 9) == "#version:") continue;
        if (line.empty()) continue;
        utf8_validate(line, "BPE codes line " + std::to_string(line_number));
        std::size_t space = line.find(' ');
        if (space == std::string_view::npos || space == 0 || space + 1 >= line.size() ||
            line.find(' ', space + 1) != std::string_view::npos)
            throw Error("BPE codes line " + std::to_string(line_number) + ": '" + std::string(line) +
                        "' (expected two symbols separated by one space)");
        merges.push_back({std::string(line.substr(0, space)), std::string(line.substr(space + 1))});
    }
    return Bpe(std::move(merges));
}

void to_json(nlohmann::json& j, const Bpe& bpe) {
    nlohmann::json merges = nlohmann::json::array();
    for (const BpeMerge& merge : bpe.merges_) merges.push_back(nlohmann::json::array({merge.first, merge.second}));
    j = nlohmann::json{{"type", "bpe"}, {"version", "subword-nmt 0.2"}, {"end_of_word", Bpe::kEndOfWord},
                       {"separator", Bpe::kSeparator}, {"merges", merges}};
}

void from_json(const nlohmann::json& j, Bpe& bpe) {
    if (!j.is_object() || !j.contains("merges") || !j["merges"].is_array())
        throw Error("BPE description: expected an object with a 'merges' array");
    if (j.contains("end_of_word") && j["end_of_word"] != Bpe::kEndOfWord)
        throw Error("BPE description: end_of_word marker " + j["end_of_word"].dump() + " (expected \"</w>\")");
    if (j.contains("separator") && j["separator"] != Bpe::kSeparator)
        throw Error("BPE description: separator " + j["separator"].dump() + " (expected \"@@\")");
    std::vector<BpeMerge> merges;
    merges.reserve(j["merges"].size());
    for (std::size_t i = 0; i < j["merges"].size(); ++i) {
        const nlohmann::json& merge = j["merges"][i];
        if (!merge.is_array() || merge.size() != 2 || !merge[0].is_string() || !merge[1].is_string())
            throw Error("BPE description: merge " + std::to_string(i) + " is " + merge.dump() +
                        " (expected [first, second])");
        merges.push_back({merge[0].get<std::string>(), merge[1].get<std::string>()});
    }
    bpe = Bpe(std::move(merges));
}

std::string undo_bpe(std::string_view line) {
    std::string out;
    out.reserve(line.size());
    for (std::size_t i = 0; i < line.size();) {
        if (line.compare(i, 2, "@@") == 0) {
            if (i + 2 < line.size() && line[i + 2] == ' ') {
                i += 3;
                continue;
            }
            if (i + 2 == line.size()) break;
        }
        out.push_back(line[i++]);
    }
    return out;
}

std::vector<std::string> undo_bpe(const std::vector<std::string>& bpe_tokens) {
    std::vector<std::string> words;
    bool continues = false;
    for (const std::string& token : bpe_tokens) {
        bool marked = token.size() >= 2 && token.compare(token.size() - 2, 2, Bpe::kSeparator) == 0;
        std::string piece = marked ? token.substr(0, token.size() - 2) : token;
        if (continues && !words.empty())
            words.back() += piece;
        else
            words.push_back(piece);
        continues = marked;
    }
    return words;
}

}  // namespace attend
