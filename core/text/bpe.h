// Byte-pair encoding with subword-nmt semantics (Sennrich et al.): a word is split into characters (code
// points), the last one carrying the end-of-word marker "</w>"; merges join adjacent symbols; applied
// text marks every piece but a word's last with the continuation "@@" ("wal@@ king"), and undoing the BPE
// removes "@@ ". The merges serialize to JSON (model file metadata) and to subword-nmt's codes text.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attend {

struct BpeMerge {
    std::string first, second;
    bool operator==(const BpeMerge& other) const { return first == other.first && second == other.second; }
};

// Word frequencies in first-seen order (words are space-separated tokens of tokenized text).
using WordCounts = std::vector<std::pair<std::string, std::int64_t>>;
WordCounts count_words(const std::vector<std::string>& lines);
void add_word_counts(WordCounts& counts, const std::vector<std::string>& lines);

class Bpe {
public:
    static constexpr const char* kEndOfWord = "</w>";
    static constexpr const char* kSeparator = "@@";

    Bpe() = default;
    explicit Bpe(std::vector<BpeMerge> merges);

    // Learns up to `num_merges` merges (fewer when no pair occurs `min_frequency` times any more). Each step
    // merges the most frequent pair; ties go to the lexicographically greatest (first, second) pair by
    // code point, which is what subword-nmt's max over (count, pair) picks. Pair counts are kept in an
    // incremental index (pair -> words containing it, and a max-heap with lazy deletion), so a merge only
    // touches the words that contain its pair. With split_digits no merge involves an ASCII digit, so every
    // number stays one piece per digit: a model that sees "2@@ 0@@ 1@@ 5" can copy any number, including the
    // ones that never occurred in training.
    static Bpe learn(const WordCounts& words, int num_merges, std::int64_t min_frequency = 2,
                     bool split_digits = false);

    // The pieces of one word, end-of-word marker removed, without continuation markers ("walking" ->
    // "wal", "king"). Throws attend::Error on invalid UTF-8.
    std::vector<std::string> encode_word(std::string_view word) const;
    // Tokens to BPE tokens with "@@" on every piece but a word's last.
    std::vector<std::string> apply(const std::vector<std::string>& tokens) const;
    // A line of space-separated tokens to a line of BPE tokens.
    std::string apply_line(std::string_view line) const;
    // Many lines, with a word cache shared by them (what applying to a training set needs).
    std::vector<std::string> apply_lines(const std::vector<std::string>& lines) const;

    const std::vector<BpeMerge>& merges() const { return merges_; }
    std::size_t size() const { return merges_.size(); }

    // subword-nmt's codes file: "#version: 0.2" then one "first second" line per merge.
    std::string to_codes_text() const;
    static Bpe from_codes_text(std::string_view text);

    friend void to_json(nlohmann::json& j, const Bpe& bpe);
    friend void from_json(const nlohmann::json& j, Bpe& bpe);

private:
    void build_ranks();
    std::vector<BpeMerge> merges_;
    std::unordered_map<std::string, int> ranks_;  // "first second" -> merge rank (first occurrence wins)
};

// Removes the BPE continuation markers: "wal@@ king" -> "walking" (sed -r 's/(@@ )|(@@ ?$)//g').
std::string undo_bpe(std::string_view line);
std::vector<std::string> undo_bpe(const std::vector<std::string>& bpe_tokens);

}  // namespace attend
