// A SentencePiece encoder and decoder for the models Attend trains with the SentencePiece library
// (native/text/sentencepiece_library.h): unigram and BPE piece tables, the "identity" normalization rule,
// byte fallback. Portable (the standard library and nlohmann-json only), so the WebAssembly build encodes
// and decodes exactly as the native one; tests/parity checks it id for id against libsentencepiece 0.1.97.
//
// The contract, each rule as SentencePiece 0.1.97 applies it:
//
// normalize(text): the identity rule maps every character to itself, so only whitespace handling is left.
//   - The one whitespace character is U+0020 SPACE. Tab, newline, no-break space, U+3000 and the other
//     Unicode spaces are ordinary characters (they become pieces, or bytes).
//   - A byte that does not start a valid UTF-8 sequence (bad lead or trail byte, truncated, overlong,
//     surrogate, > U+10FFFF) becomes U+FFFD, one per byte.
//   - remove_extra_whitespaces: leading and trailing spaces go, and a run of spaces inside becomes one.
//   - add_dummy_prefix: one "▁" (U+2581) is put in front, so a word at the start of a line is spelt as
//     one in the middle is.
//   - Every space left becomes "▁". Then, with remove_extra_whitespaces, every trailing "▁" goes, including
//     a literal U+2581 that the input itself ended with ("a▁" normalizes to "▁a").
//   - Text that is empty or only spaces normalizes to "" (no dummy prefix) and encodes to no ids.
//   - A user_defined piece found at a position is taken whole (longest such piece), before the rules above.
//
// encode(text) == SentencePieceProcessor::EncodeAsIds(text):
//   - unigram: the Viterbi path over all pieces that match at each position, maximizing the sum of piece
//     scores (float, summed left to right); a character that starts no piece is an unknown node scoring
//     (lowest normal score - 10). Ties keep the path found first (SentencePiece's "optimized" encoder).
//     user_defined pieces score (length in bytes * highest normal score - 0.1); unused pieces never match.
//   - bpe: start from characters (user_defined pieces whole, never merged); repeatedly merge the adjacent
//     pair whose concatenation is a piece of the highest score, the leftmost on a tie. A merged unused piece
//     is split back into the two it was made of.
//   - Then a character that is no piece is, with byte_fallback, its UTF-8 bytes as the pieces "<0xHH>";
//     without byte_fallback, one id 0 (<unk>) for each run of unknown characters.
//
// decode(ids) == SentencePieceProcessor::DecodeIds(ids):
//   - control pieces give nothing; the unknown piece gives " ⁇ " (U+2047 between spaces);
//   - every "▁" of other pieces becomes a space;
//   - a run of byte pieces is read as UTF-8, one U+FFFD for each byte that does not start a valid sequence;
//   - with remove_extra_whitespaces (or add_dummy_prefix), pieces that come while the output is still empty
//     lose one leading "▁" each (with add_dummy_prefix alone, only the first such piece).
//   - An id outside [0, size()) throws attend::Error.
//
// A model is immutable once built: the constructor validates it and builds the lookup structures, so const
// calls (encode, decode) are safe from many threads at once.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attend {

class SentencePieceModel {
public:
    enum class Algorithm { unigram, bpe };
    enum class PieceType { normal, unknown, control, user_defined, unused, byte };

    struct Piece {
        std::string text;  // "▁" for a space; "<0x41>" for a byte piece
        float score = 0.0f;
        PieceType type = PieceType::normal;
        bool operator==(const Piece& other) const {
            return text == other.text && score == other.score && type == other.type;
        }
    };

    struct Options {
        Algorithm algorithm = Algorithm::unigram;
        bool add_dummy_prefix = true;
        bool remove_extra_whitespaces = true;
        bool byte_fallback = true;
        bool operator==(const Options& other) const {
            return algorithm == other.algorithm && add_dummy_prefix == other.add_dummy_prefix &&
                   remove_extra_whitespaces == other.remove_extra_whitespaces &&
                   byte_fallback == other.byte_fallback;
        }
    };

    static constexpr std::size_t kMaxPieces = 1000000;
    static constexpr const char* kSpaceSymbol = "\xE2\x96\x81";     // U+2581 "▁"
    static constexpr const char* kUnknownSurface = " \xE2\x81\x87 ";  // " ⁇ "

    SentencePieceModel() = default;  // no pieces: encode and decode throw
    // Pieces in id order. Throws attend::Error naming the first problem (see validate).
    SentencePieceModel(Options options, std::vector<Piece> pieces);

    // Checks what a file could get wrong, throwing attend::Error that names the piece: at least one and at
    // most kMaxPieces pieces; each non-empty, valid UTF-8, not repeated, with a finite score; exactly one
    // unknown piece, and it is id 0; byte pieces spelt "<0xHH>" (upper-case hex), only with byte_fallback,
    // and then all 256 of them; a unigram model has a normal, user_defined or unused piece to match.
    static void validate(const Options& options, const std::vector<Piece>& pieces);

    std::string normalize(std::string_view text) const;
    std::vector<int> encode(std::string_view text) const;
    std::vector<std::string> encode_pieces(std::string_view text) const;
    std::string decode(const std::vector<int>& ids) const;
    // Pieces that are not in the table count as the unknown piece, but decode to their own text.
    std::string decode_pieces(const std::vector<std::string>& pieces) const;

    const Options& options() const { return options_; }
    const std::vector<Piece>& pieces() const { return pieces_; }
    std::size_t size() const { return pieces_.size(); }
    int piece_to_id(std::string_view piece) const;  // 0 (unknown) when absent
    const std::string& id_to_piece(int id) const;   // throws attend::Error when out of range

    bool operator==(const SentencePieceModel& other) const {
        return options_ == other.options_ && pieces_ == other.pieces_;
    }

    // {"algorithm": "unigram", "add_dummy_prefix": true, "remove_extra_whitespaces": true,
    //  "byte_fallback": true, "pieces": [["<unk>", 0, "unknown"], ["<pad>", 0, "control"], ...]}
    // from_json wants exactly these keys, with these types, and then validates.
    friend void to_json(nlohmann::json& j, const SentencePieceModel& model);
    friend void from_json(const nlohmann::json& j, SentencePieceModel& model);

private:
    // A byte trie over the pieces that encoding can produce (normal, user_defined, unused).
    struct Trie {
        struct Node {
            std::int32_t first_edge = 0, edge_count = 0;  // edges sorted by label
            std::int32_t id = -1;                         // piece id ending here, or -1
        };
        std::vector<Node> nodes;
        std::vector<unsigned char> edge_labels;
        std::vector<std::int32_t> edge_targets;
        void build(const std::vector<std::pair<std::string_view, int>>& sorted_keys);
        int child(int node, unsigned char label) const;  // -1 when none
        int find(std::string_view key) const;             // exact match id, or -1
    };

    // A normalized piece of text with its id (-1 while not yet known), before byte fallback.
    struct Segment {
        std::string_view text;
        int id;
    };

    void build_lookup();
    void check_ready() const;
    std::size_t user_defined_prefix(std::string_view text) const;  // longest match, 0 when none
    std::vector<Segment> encode_unigram(std::string_view normalized) const;
    std::vector<Segment> encode_bpe(std::string_view normalized) const;
    std::vector<int> segments_to_ids(const std::vector<Segment>& segments) const;
    std::string decode_resolved(const std::vector<std::string_view>& texts, const std::vector<int>& ids) const;

    Options options_;
    std::vector<Piece> pieces_;
    Trie trie_;               // normal, user_defined, unused
    Trie user_defined_trie_;  // user_defined only (empty when there are none)
    bool has_user_defined_ = false;
    std::unordered_map<std::string, int> piece_ids_;
    int byte_ids_[256] = {};
    float min_normal_score_ = 0.0f, max_normal_score_ = 0.0f;
};

}  // namespace attend
