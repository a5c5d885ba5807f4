#include "text/sentencepiece.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <queue>

#include "error.h"
#include "text/utf8.h"

namespace attend {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr float kUnknownPenalty = 10.0f;

// Length of the UTF-8 sequence at the start of `text` when it is valid, else 0. Valid means what
// SentencePiece's decoder accepts: no overlong form, no surrogate, nothing above U+10FFFF.
std::size_t valid_utf8_length(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const auto trail = [&](std::size_t i) { return (byte(i) & 0xC0) == 0x80; };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0 && text.size() >= 2 && trail(1)) {
        const char32_t c = ((lead & 0x1Fu) << 6) | (byte(1) & 0x3Fu);
        return c >= 0x80 ? 2 : 0;
    }
    if ((lead & 0xF0) == 0xE0 && text.size() >= 3 && trail(1) && trail(2)) {
        const char32_t c = ((lead & 0x0Fu) << 12) | ((byte(1) & 0x3Fu) << 6) | (byte(2) & 0x3Fu);
        return c >= 0x800 && (c < 0xD800 || c >= 0xE000) ? 3 : 0;
    }
    if ((lead & 0xF8) == 0xF0 && text.size() >= 4 && trail(1) && trail(2) && trail(3)) {
        const char32_t c = ((lead & 0x07u) << 18) | ((byte(1) & 0x3Fu) << 12) | ((byte(2) & 0x3Fu) << 6) |
                           (byte(3) & 0x3Fu);
        return c >= 0x10000 && c <= 0x10FFFF ? 4 : 0;
    }
    return 0;
}

// The length of the character starting at `text` judged by its lead byte alone (SentencePiece's
// OneCharLen), at most what is left. The encoders step through normalized text, which is valid UTF-8.
std::size_t lead_byte_length(std::string_view text) {
    const unsigned char lead = static_cast<unsigned char>(text[0]);
    const std::size_t length = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    return std::min(length, text.size());
}

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string byte_piece(unsigned char byte) {
    char text[8];
    std::snprintf(text, sizeof text, "<0x%02X>", byte);
    return text;
}

// The byte a piece "<0xHH>" stands for, or -1 when it is not spelt so.
int byte_of_piece(std::string_view piece) {
    if (piece.size() != 6 || !starts_with(piece, "<0x") || piece[5] != '>') return -1;
    int value = 0;
    for (std::size_t i = 3; i < 5; ++i) {
        const char c = piece[i];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

void replace_spaces(std::string_view piece, std::string& out) {
    while (!piece.empty()) {
        if (starts_with(piece, kSpace)) {
            out += ' ';
            piece.remove_prefix(kSpace.size());
        } else {
            out += piece[0];
            piece.remove_prefix(1);
        }
    }
}

const char* algorithm_name(SentencePieceModel::Algorithm algorithm) {
    return algorithm == SentencePieceModel::Algorithm::unigram ? "unigram" : "bpe";
}

constexpr std::pair<SentencePieceModel::PieceType, const char*> kPieceTypeNames[] = {
    {SentencePieceModel::PieceType::normal, "normal"},   {SentencePieceModel::PieceType::unknown, "unknown"},
    {SentencePieceModel::PieceType::control, "control"}, {SentencePieceModel::PieceType::user_defined, "user_defined"},
    {SentencePieceModel::PieceType::unused, "unused"},   {SentencePieceModel::PieceType::byte, "byte"},
};

std::string in_quotes(std::string_view piece) { return "'" + std::string(piece) + "'"; }

}  // namespace

// ---------------------------------------------------------------- the trie

void SentencePieceModel::Trie::build(const std::vector<std::pair<std::string_view, int>>& sorted_keys) {
    nodes.assign(1, Node{});
    edge_labels.clear();
    edge_targets.clear();
    // Children are laid out breadth first: a node's edges are contiguous and sorted because keys are sorted.
    // Each queue entry is a node and the range of keys that share its prefix of length `depth`.
    struct Pending {
        int node;
        std::size_t depth, begin, end;
    };
    std::vector<Pending> queue{{0, 0, 0, sorted_keys.size()}};
    for (std::size_t q = 0; q < queue.size(); ++q) {
        const Pending pending = queue[q];
        std::size_t i = pending.begin;
        if (i < pending.end && sorted_keys[i].first.size() == pending.depth) {
            nodes[pending.node].id = sorted_keys[i].second;
            ++i;
        }
        nodes[pending.node].first_edge = static_cast<std::int32_t>(edge_labels.size());
        while (i < pending.end) {
            const unsigned char label = static_cast<unsigned char>(sorted_keys[i].first[pending.depth]);
            std::size_t j = i + 1;
            while (j < pending.end && static_cast<unsigned char>(sorted_keys[j].first[pending.depth]) == label) ++j;
            const int child = static_cast<int>(nodes.size());
            nodes.push_back(Node{});
            edge_labels.push_back(label);
            edge_targets.push_back(child);
            queue.push_back({child, pending.depth + 1, i, j});
            i = j;
        }
        nodes[pending.node].edge_count =
            static_cast<std::int32_t>(edge_labels.size()) - nodes[pending.node].first_edge;
    }
}

int SentencePieceModel::Trie::child(int node, unsigned char label) const {
    const Node& n = nodes[node];
    const auto begin = edge_labels.begin() + n.first_edge, end = begin + n.edge_count;
    const auto it = std::lower_bound(begin, end, label);
    return it != end && *it == label ? edge_targets[it - edge_labels.begin()] : -1;
}

int SentencePieceModel::Trie::find(std::string_view key) const {
    if (nodes.empty()) return -1;
    int node = 0;
    for (const char c : key) {
        node = child(node, static_cast<unsigned char>(c));
        if (node < 0) return -1;
    }
    return nodes[node].id;
}

// ---------------------------------------------------------------- construction and checks

SentencePieceModel::SentencePieceModel(Options options, std::vector<Piece> pieces)
    : options_(options), pieces_(std::move(pieces)) {
    validate(options_, pieces_);
    build_lookup();
}

void SentencePieceModel::validate(const Options& options, const std::vector<Piece>& pieces) {
    const std::string what = "SentencePiece model: ";
    if (pieces.empty()) throw Error(what + "has no pieces");
    if (pieces.size() > kMaxPieces)
        throw Error(what + "has " + std::to_string(pieces.size()) + " pieces, more than the limit of " +
                    std::to_string(kMaxPieces));
    std::unordered_map<std::string_view, std::size_t> seen;
    std::vector<bool> byte_seen(256, false);
    bool has_matchable = false;
    for (std::size_t id = 0; id < pieces.size(); ++id) {
        const Piece& piece = pieces[id];
        const std::string at = what + "piece " + std::to_string(id);
        if (piece.text.empty()) throw Error(at + " is empty");
        if (utf8_find_invalid(piece.text) != std::string_view::npos) throw Error(at + " is not valid UTF-8");
        const auto [it, inserted] = seen.emplace(piece.text, id);
        if (!inserted) throw Error(at + " " + in_quotes(piece.text) + " repeats piece " + std::to_string(it->second));
        if (!std::isfinite(piece.score)) throw Error(at + " " + in_quotes(piece.text) + " has a score that is not finite");
        if (piece.type == PieceType::unknown && id != 0)
            throw Error(at + " " + in_quotes(piece.text) + " is of type unknown: only piece 0 may be");
        if (piece.type == PieceType::byte) {
            if (!options.byte_fallback)
                throw Error(at + " " + in_quotes(piece.text) + " is a byte piece but byte_fallback is off");
            const int byte = byte_of_piece(piece.text);
            if (byte < 0) throw Error(at + " " + in_quotes(piece.text) + " is a byte piece not spelt <0xHH>");
            byte_seen[byte] = true;
        }
        if (piece.type == PieceType::normal || piece.type == PieceType::user_defined ||
            piece.type == PieceType::unused)
            has_matchable = true;
    }
    if (pieces[0].type != PieceType::unknown)
        throw Error(what + "piece 0 " + in_quotes(pieces[0].text) + " must be of type unknown");
    if (options.byte_fallback) {
        for (int byte = 0; byte < 256; ++byte)
            if (!byte_seen[byte])
                throw Error(what + "byte_fallback is on but the byte piece " + byte_piece(byte) + " is missing");
    }
    if (options.algorithm == Algorithm::unigram && !has_matchable)
        throw Error(what + "a unigram model needs at least one normal, user_defined or unused piece");
}

void SentencePieceModel::build_lookup() {
    std::vector<std::pair<std::string_view, int>> keys, user_defined;
    piece_ids_.clear();
    piece_ids_.reserve(pieces_.size());
    min_normal_score_ = FLT_MAX;
    max_normal_score_ = FLT_MIN;  // as SentencePiece has it: the smallest positive float, not the lowest
    for (std::size_t id = 0; id < pieces_.size(); ++id) {
        const Piece& piece = pieces_[id];
        piece_ids_.emplace(piece.text, static_cast<int>(id));
        switch (piece.type) {
            case PieceType::normal:
                min_normal_score_ = std::min(min_normal_score_, piece.score);
                max_normal_score_ = std::max(max_normal_score_, piece.score);
                keys.emplace_back(piece.text, static_cast<int>(id));
                break;
            case PieceType::user_defined:
                user_defined.emplace_back(piece.text, static_cast<int>(id));
                keys.emplace_back(piece.text, static_cast<int>(id));
                break;
            case PieceType::unused: keys.emplace_back(piece.text, static_cast<int>(id)); break;
            case PieceType::byte: byte_ids_[byte_of_piece(piece.text)] = static_cast<int>(id); break;
            case PieceType::unknown:
            case PieceType::control: break;
        }
    }
    std::sort(keys.begin(), keys.end());
    std::sort(user_defined.begin(), user_defined.end());
    trie_.build(keys);
    user_defined_trie_.build(user_defined);
    has_user_defined_ = !user_defined.empty();
}

void SentencePieceModel::check_ready() const {
    if (pieces_.empty()) throw Error("SentencePiece model: has no pieces (default-constructed)");
}

int SentencePieceModel::piece_to_id(std::string_view piece) const {
    const auto it = piece_ids_.find(std::string(piece));
    return it == piece_ids_.end() ? 0 : it->second;
}

const std::string& SentencePieceModel::id_to_piece(int id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= pieces_.size())
        throw Error("SentencePiece model: id " + std::to_string(id) + " is outside [0, " +
                    std::to_string(pieces_.size()) + ")");
    return pieces_[id].text;
}

// ---------------------------------------------------------------- normalization

std::size_t SentencePieceModel::user_defined_prefix(std::string_view text) const {
    std::size_t longest = 0;
    int node = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        node = user_defined_trie_.child(node, static_cast<unsigned char>(text[i]));
        if (node < 0) break;
        if (user_defined_trie_.nodes[node].id >= 0) longest = i + 1;
    }
    return longest;
}

std::string SentencePieceModel::normalize(std::string_view text) const {
    // The next unit of input: a user_defined piece, a character, or U+FFFD for an invalid byte; with the
    // number of input bytes it stands for.
    const auto next_unit = [&](std::string_view rest) -> std::pair<std::string_view, std::size_t> {
        if (has_user_defined_) {
            const std::size_t length = user_defined_prefix(rest);
            if (length > 0) return {rest.substr(0, length), length};
        }
        const std::size_t length = valid_utf8_length(rest);
        if (length == 0) return {kReplacement, 1};
        return {rest.substr(0, length), length};
    };

    if (options_.remove_extra_whitespaces) {
        while (!text.empty()) {
            const auto [unit, consumed] = next_unit(text);
            if (unit != " ") break;
            text.remove_prefix(consumed);
        }
    }
    std::string out;
    if (text.empty()) return out;
    out.reserve(text.size() * 3);
    if (options_.add_dummy_prefix) out += kSpace;

    bool previous_was_space = options_.remove_extra_whitespaces;
    while (!text.empty()) {
        auto [unit, consumed] = next_unit(text);
        while (previous_was_space && starts_with(unit, " ")) unit.remove_prefix(1);
        if (!unit.empty()) {
            for (const char c : unit) {
                if (c == ' ')
                    out += kSpace;
                else
                    out += c;
            }
            previous_was_space = ends_with(unit, " ");
        }
        text.remove_prefix(consumed);
        if (!options_.remove_extra_whitespaces) previous_was_space = false;
    }
    if (options_.remove_extra_whitespaces) {
        while (ends_with(out, kSpace)) out.resize(out.size() - kSpace.size());
    }
    return out;
}

// ---------------------------------------------------------------- encoding

std::vector<SentencePieceModel::Segment> SentencePieceModel::encode_unigram(std::string_view normalized) const {
    // best[e]: the best path covering normalized[0, e): its score, the start of its last piece, that
    // piece's id. Each start position is visited once, walking the trie along the text from there.
    struct Best {
        float score = 0.0f;
        int start = -1;
        int id = -1;
    };
    const std::size_t size = normalized.size();
    const float unknown_score = min_normal_score_ - kUnknownPenalty;
    std::vector<Best> best(size + 1);
    std::size_t start = 0;
    while (start < size) {
        const float score_so_far = best[start].score;
        const std::size_t char_length = lead_byte_length(normalized.substr(start));
        bool has_single_character = false;
        int node = 0;
        for (std::size_t end = start; end < size;) {
            node = trie_.child(node, static_cast<unsigned char>(normalized[end]));
            if (node < 0) break;
            ++end;
            const int id = trie_.nodes[node].id;
            if (id < 0) continue;
            const Piece& piece = pieces_[id];
            if (piece.type == PieceType::unused) continue;
            const std::size_t length = end - start;
            Best& target = best[end];
            // As SentencePiece computes it: in double (a user_defined piece's bonus, which makes it win, is a
            // double, so both arms of its conditional are), compared with the float stored so far.
            const double score = piece.type == PieceType::user_defined
                                     ? static_cast<float>(length) * max_normal_score_ - 0.1
                                     : static_cast<double>(piece.score);
            const double candidate = score + static_cast<double>(score_so_far);
            if (target.start == -1 || candidate > static_cast<double>(target.score)) {
                target.score = static_cast<float>(candidate);
                target.start = static_cast<int>(start);
                target.id = id;
            }
            if (length == char_length) has_single_character = true;
        }
        if (!has_single_character) {
            Best& target = best[start + char_length];
            const float candidate = unknown_score + score_so_far;
            if (target.start == -1 || candidate > target.score) {
                target.score = candidate;
                target.start = static_cast<int>(start);
                target.id = 0;
            }
        }
        start += char_length;
    }
    std::vector<Segment> segments;
    for (std::size_t end = size; end > 0;) {
        const Best& node = best[end];
        segments.push_back({normalized.substr(node.start, end - node.start), node.id});
        end = static_cast<std::size_t>(node.start);
    }
    std::reverse(segments.begin(), segments.end());
    return segments;
}

std::vector<SentencePieceModel::Segment> SentencePieceModel::encode_bpe(std::string_view normalized) const {
    // Symbols form a linked list over the text; a merge grows the left symbol and empties the right one.
    struct Symbol {
        int prev, next;
        bool frozen;  // a user_defined piece: never merged
        std::string_view text;
    };
    struct Candidate {
        int left, right;
        float score;
        std::size_t size;
    };
    // Highest score first; on a tie, the leftmost.
    const auto lower_priority = [](const Candidate& a, const Candidate& b) {
        return a.score < b.score || (a.score == b.score && a.left > b.left);
    };
    std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower_priority)> agenda(lower_priority);
    std::vector<Symbol> symbols;
    symbols.reserve(normalized.size());
    // Unused pieces that a merge produced, with the two symbols they were made of.
    std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> unmerge;

    const auto consider = [&](int left, int right) {
        if (left < 0 || right < 0 || symbols[left].frozen || symbols[right].frozen) return;
        const std::string_view joined(symbols[left].text.data(), symbols[left].text.size() + symbols[right].text.size());
        const int id = trie_.find(joined);
        if (id < 0) return;
        agenda.push({left, right, pieces_[id].score, joined.size()});
        if (pieces_[id].type == PieceType::unused) unmerge[joined] = {symbols[left].text, symbols[right].text};
    };

    for (std::string_view rest = normalized; !rest.empty();) {
        std::size_t length = has_user_defined_ ? user_defined_prefix(rest) : 0;
        const bool frozen = length > 0;
        if (!frozen) length = lead_byte_length(rest);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, length == rest.size() ? -1 : index + 1, frozen, rest.substr(0, length)});
        rest.remove_prefix(length);
    }
    for (std::size_t i = 1; i < symbols.size(); ++i) consider(static_cast<int>(i) - 1, static_cast<int>(i));

    while (!agenda.empty()) {
        const Candidate top = agenda.top();
        agenda.pop();
        Symbol& left = symbols[top.left];
        Symbol& right = symbols[top.right];
        if (left.text.empty() || right.text.empty() || left.text.size() + right.text.size() != top.size)
            continue;  // stale: one side has been merged since
        left.text = std::string_view(left.text.data(), top.size);
        left.next = right.next;
        if (right.next >= 0) symbols[right.next].prev = top.left;
        right.text = {};
        consider(left.prev, top.left);
        consider(top.left, left.next);
    }

    std::vector<Segment> segments;
    const auto emit = [&](auto& self, std::string_view text) -> void {
        const int found = trie_.find(text);
        const int id = found < 0 ? piece_to_id(text) : found;
        if (pieces_[id].type == PieceType::unused) {
            const auto parts = unmerge.find(text);
            if (parts != unmerge.end()) {
                self(self, parts->second.first);
                self(self, parts->second.second);
                return;
            }
        }
        segments.push_back({text, id});
    };
    for (int index = symbols.empty() ? -1 : 0; index >= 0; index = symbols[index].next) emit(emit, symbols[index].text);
    return segments;
}

std::vector<int> SentencePieceModel::segments_to_ids(const std::vector<Segment>& segments) const {
    std::vector<int> ids;
    ids.reserve(segments.size());
    bool previous_unknown = false;
    for (const Segment& segment : segments) {
        const bool unknown = segment.id == 0;
        if (unknown && options_.byte_fallback) {
            for (const char c : segment.text) ids.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        } else if (!(unknown && previous_unknown)) {  // a run of unknown characters is one <unk>
            ids.push_back(segment.id);
        }
        previous_unknown = unknown;
    }
    return ids;
}

std::vector<int> SentencePieceModel::encode(std::string_view text) const {
    check_ready();
    const std::string normalized = normalize(text);
    if (normalized.empty()) return {};
    return segments_to_ids(options_.algorithm == Algorithm::unigram ? encode_unigram(normalized)
                                                                    : encode_bpe(normalized));
}

std::vector<std::string> SentencePieceModel::encode_pieces(std::string_view text) const {
    check_ready();
    const std::string normalized = normalize(text);
    if (normalized.empty()) return {};
    const std::vector<Segment> segments =
        options_.algorithm == Algorithm::unigram ? encode_unigram(normalized) : encode_bpe(normalized);
    std::vector<std::string> out;
    bool previous_unknown = false;
    for (const Segment& segment : segments) {
        const bool unknown = segment.id == 0;
        if (unknown && options_.byte_fallback) {
            for (const char c : segment.text) out.push_back(byte_piece(static_cast<unsigned char>(c)));
        } else if (unknown && previous_unknown) {
            out.back() += segment.text;  // SentencePiece spells a run of unknown characters as they are
        } else if (unknown) {
            out.emplace_back(segment.text);
        } else {
            out.push_back(pieces_[segment.id].text);
        }
        previous_unknown = unknown;
    }
    return out;
}

// ---------------------------------------------------------------- decoding

std::string SentencePieceModel::decode_resolved(const std::vector<std::string_view>& texts,
                                                const std::vector<int>& ids) const {
    std::string out;
    std::string bytes;  // the current run of byte pieces
    const auto flush_bytes = [&] {
        std::string_view rest = bytes;
        while (!rest.empty()) {
            const std::size_t length = valid_utf8_length(rest);
            if (length == 0) {
                out += kReplacement;
                rest.remove_prefix(1);
            } else {
                out.append(rest.data(), length);
                rest.remove_prefix(length);
            }
        }
        bytes.clear();
    };
    const bool strip_leading_space = options_.add_dummy_prefix || options_.remove_extra_whitespaces;
    bool at_start = true;       // still expecting the space a dummy prefix put in front
    bool stripped_once = false;  // with add_dummy_prefix alone, only one piece loses it
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const Piece& piece = pieces_[ids[i]];
        if (piece.type == PieceType::byte) {
            bytes += static_cast<char>(byte_of_piece(piece.text));
            continue;
        }
        flush_bytes();
        if (stripped_once || !out.empty()) at_start = false;
        std::string_view text = texts[i];
        switch (piece.type) {
            case PieceType::control: break;
            case PieceType::unknown:
                out += text == piece.text ? std::string_view(kUnknownSurface) : text;
                break;
            default:
                if (at_start && strip_leading_space && starts_with(text, kSpace)) {
                    text.remove_prefix(kSpace.size());
                    stripped_once = !options_.remove_extra_whitespaces;
                }
                replace_spaces(text, out);
        }
    }
    flush_bytes();
    return out;
}

std::string SentencePieceModel::decode(const std::vector<int>& ids) const {
    check_ready();
    std::vector<std::string_view> texts;
    texts.reserve(ids.size());
    for (const int id : ids) texts.emplace_back(id_to_piece(id));
    return decode_resolved(texts, ids);
}

std::string SentencePieceModel::decode_pieces(const std::vector<std::string>& pieces) const {
    check_ready();
    std::vector<std::string_view> texts(pieces.begin(), pieces.end());
    std::vector<int> ids;
    ids.reserve(pieces.size());
    for (const std::string& piece : pieces) ids.push_back(piece_to_id(piece));
    return decode_resolved(texts, ids);
}

// ---------------------------------------------------------------- JSON

void to_json(nlohmann::json& j, const SentencePieceModel& model) {
    nlohmann::json pieces = nlohmann::json::array();
    for (const SentencePieceModel::Piece& piece : model.pieces_) {
        const char* type = "";
        for (const auto& [t, name] : kPieceTypeNames)
            if (t == piece.type) type = name;
        pieces.push_back(nlohmann::json::array({piece.text, piece.score, type}));
    }
    j = nlohmann::json{{"algorithm", algorithm_name(model.options_.algorithm)},
                       {"add_dummy_prefix", model.options_.add_dummy_prefix},
                       {"remove_extra_whitespaces", model.options_.remove_extra_whitespaces},
                       {"byte_fallback", model.options_.byte_fallback},
                       {"pieces", std::move(pieces)}};
}

void from_json(const nlohmann::json& j, SentencePieceModel& model) {
    const std::string what = "SentencePiece model JSON: ";
    if (!j.is_object()) throw Error(what + "expected an object, got " + j.type_name());
    static const char* const kKeys[] = {"algorithm", "add_dummy_prefix", "remove_extra_whitespaces", "byte_fallback",
                                        "pieces"};
    for (const auto& item : j.items()) {
        if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return item.key() == k; }) ==
            std::end(kKeys))
            throw Error(what + "unknown key '" + item.key() + "'");
    }
    for (const char* key : kKeys)
        if (!j.contains(key)) throw Error(what + "missing key '" + key + "'");

    SentencePieceModel::Options options;
    const nlohmann::json& algorithm = j.at("algorithm");
    if (!algorithm.is_string()) throw Error(what + "'algorithm' must be a string");
    if (algorithm == "unigram")
        options.algorithm = SentencePieceModel::Algorithm::unigram;
    else if (algorithm == "bpe")
        options.algorithm = SentencePieceModel::Algorithm::bpe;
    else
        throw Error(what + "unknown algorithm '" + algorithm.get<std::string>() + "' (known: unigram, bpe)");
    const auto flag = [&](const char* key) {
        const nlohmann::json& value = j.at(key);
        if (!value.is_boolean()) throw Error(what + "'" + key + "' must be true or false");
        return value.get<bool>();
    };
    options.add_dummy_prefix = flag("add_dummy_prefix");
    options.remove_extra_whitespaces = flag("remove_extra_whitespaces");
    options.byte_fallback = flag("byte_fallback");

    const nlohmann::json& list = j.at("pieces");
    if (!list.is_array()) throw Error(what + "'pieces' must be an array");
    if (list.size() > SentencePieceModel::kMaxPieces)
        throw Error(what + "'pieces' has " + std::to_string(list.size()) + " entries, more than the limit of " +
                    std::to_string(SentencePieceModel::kMaxPieces));
    std::vector<SentencePieceModel::Piece> pieces;
    pieces.reserve(list.size());
    for (std::size_t id = 0; id < list.size(); ++id) {
        const nlohmann::json& entry = list[id];
        const std::string at = what + "piece " + std::to_string(id);
        if (!entry.is_array() || entry.size() != 3 || !entry[0].is_string() || !entry[1].is_number() ||
            !entry[2].is_string())
            throw Error(at + " must be [text, score, type], got " + entry.dump());
        SentencePieceModel::Piece piece;
        piece.text = entry[0].get<std::string>();
        const double score = entry[1].get<double>();
        if (!std::isfinite(score) || std::fabs(score) > FLT_MAX)
            throw Error(at + " has a score that is not a finite float: " + entry[1].dump());
        piece.score = static_cast<float>(score);
        const std::string type = entry[2].get<std::string>();
        bool known = false;
        for (const auto& [t, name] : kPieceTypeNames)
            if (type == name) piece.type = t, known = true;
        if (!known)
            throw Error(at + " has unknown type '" + type +
                        "' (known: normal, unknown, control, user_defined, unused, byte)");
        pieces.push_back(std::move(piece));
    }
    model = SentencePieceModel(options, std::move(pieces));
}

}  // namespace attend
