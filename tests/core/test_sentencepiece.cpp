// The portable SentencePiece encoder and decoder, rule by rule, on hand-made piece tables. Exact agreement with
// libsentencepiece on real models is tests/parity's job.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "error.h"
#include "text/sentencepiece.h"

using namespace attend;

namespace {

using Model = SentencePieceModel;
using Type = Model::PieceType;

const std::string kSp = "\xE2\x96\x81";  // "▁"

// <unk> <pad> <bos> <eos>, then `pieces` (normal unless a type is given), then the 256 byte pieces when
// byte_fallback is on.
Model make_model(const std::vector<Model::Piece>& pieces, Model::Algorithm algorithm = Model::Algorithm::unigram,
                 bool byte_fallback = true, bool add_dummy_prefix = true, bool remove_extra_whitespaces = true) {
    std::vector<Model::Piece> all = {
        {"<unk>", 0, Type::unknown}, {"<pad>", 0, Type::control}, {"<bos>", 0, Type::control}, {"<eos>", 0, Type::control}};
    all.insert(all.end(), pieces.begin(), pieces.end());
    if (byte_fallback) {
        for (int b = 0; b < 256; ++b) {
            char text[8];
            std::snprintf(text, sizeof text, "<0x%02X>", b);
            all.push_back({text, 0, Type::byte});
        }
    }
    Model::Options options;
    options.algorithm = algorithm;
    options.byte_fallback = byte_fallback;
    options.add_dummy_prefix = add_dummy_prefix;
    options.remove_extra_whitespaces = remove_extra_whitespaces;
    return Model(options, std::move(all));
}

std::vector<std::string> pieces_of(const Model& model, const std::string& text) { return model.encode_pieces(text); }

std::string error_of(const nlohmann::json& j) {
    try {
        j.get<Model>();
    } catch (const Error& e) {
        return e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("sentencepiece: normalization keeps every character, and only U+0020 counts as a space") {
    const Model model = make_model({{kSp, -1}});
    CHECK(model.normalize("  Hello   world  ") == kSp + "Hello" + kSp + "world");  // trimmed, runs collapsed
    CHECK(model.normalize("") == "");
    CHECK(model.normalize("    ") == "");  // nothing but spaces: not even the dummy prefix
    CHECK(model.normalize("a\tb\nc") == kSp + "a\tb\nc");
    CHECK(model.normalize("a\xC2\xA0" "b\xE3\x80\x80" "c") == kSp + "a\xC2\xA0" "b\xE3\x80\x80" "c");  // NBSP, U+3000
    // Each byte that starts no valid UTF-8 sequence is one U+FFFD.
    CHECK(model.normalize("a\xFF\xC3(b") == kSp + "a\xEF\xBF\xBD\xEF\xBF\xBD(b");
    CHECK(model.normalize("\xED\xA0\x80") == kSp + "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    // A literal U+2581 is not a space on the way in, but trailing ones are trimmed with the spaces.
    CHECK(model.normalize(kSp + "a") == kSp + kSp + "a");
    CHECK(model.normalize("a" + kSp + " " + kSp) == kSp + "a");
}

TEST_CASE("sentencepiece: normalization without the dummy prefix, and without removing extra spaces") {
    const Model no_prefix = make_model({{kSp, -1}}, Model::Algorithm::unigram, true, false);
    CHECK(no_prefix.normalize(" a  b ") == "a" + kSp + "b");
    const Model keep_spaces = make_model({{kSp, -1}}, Model::Algorithm::unigram, true, true, false);
    CHECK(keep_spaces.normalize(" a  b ") == kSp + kSp + "a" + kSp + kSp + "b" + kSp);
}

TEST_CASE("sentencepiece: unigram takes the segmentation whose scores sum highest") {
    // "▁ab": ▁|a|b = -3, ▁a|b = -2.5, ▁|ab = -2.2, ▁ab = -4: the best is ▁|ab.
    const Model model = make_model(
        {{kSp, -1}, {"a", -1}, {"b", -1}, {kSp + "a", -1.5f}, {"ab", -1.2f}, {kSp + "ab", -4}});
    CHECK(pieces_of(model, "ab") == std::vector<std::string>{kSp, "ab"});
    CHECK(model.encode("ab") == std::vector<int>{model.piece_to_id(kSp), model.piece_to_id("ab")});
    // Raising ▁ab to -2 makes it the best.
    const Model other = make_model(
        {{kSp, -1}, {"a", -1}, {"b", -1}, {kSp + "a", -1.5f}, {"ab", -1.2f}, {kSp + "ab", -2}});
    CHECK(pieces_of(other, "ab ab") == std::vector<std::string>{kSp + "ab", kSp + "ab"});
    CHECK(model.encode("   ").empty());
}

TEST_CASE("sentencepiece: unigram prefers a user_defined piece and never uses an unused one") {
    const Model model = make_model({{kSp, -1}, {"a", -1}, {"b", -1}, {"ab", -9, Type::user_defined},
                                    {kSp + "a", -0.1f, Type::unused}});
    CHECK(pieces_of(model, "ab") == std::vector<std::string>{kSp, "ab"});
    CHECK(pieces_of(model, "a") == std::vector<std::string>{kSp, "a"});
}

TEST_CASE("sentencepiece: a character that is no piece becomes its UTF-8 bytes") {
    const Model model = make_model({{kSp, -1}, {"a", -1}});
    CHECK(pieces_of(model, "a\xC3\xA9" "a") ==
          std::vector<std::string>{kSp, "a", "<0xC3>", "<0xA9>", "a"});
    CHECK(model.encode("\xC3\xA9") ==
          std::vector<int>{model.piece_to_id(kSp), model.piece_to_id("<0xC3>"), model.piece_to_id("<0xA9>")});
    // An invalid input byte was U+FFFD by then: its three bytes.
    CHECK(pieces_of(model, "\xFF") == std::vector<std::string>{kSp, "<0xEF>", "<0xBF>", "<0xBD>"});
}

TEST_CASE("sentencepiece: without byte fallback a run of unknown characters is one <unk>") {
    const Model model = make_model({{kSp, -1}, {"a", -1}}, Model::Algorithm::unigram, false);
    CHECK(model.encode("a\xC3\xA9\xC3\xA9" "a") == std::vector<int>{4, 5, 0, 5});
    CHECK(pieces_of(model, "a\xC3\xA9\xC3\xA9" "a") == std::vector<std::string>{kSp, "a", "\xC3\xA9\xC3\xA9", "a"});
    CHECK(model.decode({4, 5, 0, 5}) == "a \xE2\x81\x87 a");
}

TEST_CASE("sentencepiece: BPE merges the best-scoring adjacent pair first, the leftmost on a tie") {
    using A = Model::Algorithm;
    const Model bc_first = make_model({{kSp, -1}, {"a", -1}, {"b", -1}, {"c", -1}, {"ab", -3}, {"bc", -2}}, A::bpe);
    CHECK(pieces_of(bc_first, "abc") == std::vector<std::string>{kSp, "a", "bc"});
    const Model ab_first = make_model({{kSp, -1}, {"a", -1}, {"b", -1}, {"c", -1}, {"ab", -2}, {"bc", -3}}, A::bpe);
    CHECK(pieces_of(ab_first, "abc") == std::vector<std::string>{kSp, "ab", "c"});
    const Model tie = make_model({{kSp, -1}, {"a", -1}, {"b", -1}, {"c", -1}, {"ab", -2}, {"bc", -2}}, A::bpe);
    CHECK(pieces_of(tie, "abc") == std::vector<std::string>{kSp, "ab", "c"});
    // Merges go on from merged symbols: ▁+ab, then ▁ab+c.
    const Model chain = make_model(
        {{kSp, -1}, {"a", -1}, {"b", -1}, {"c", -1}, {"ab", -2}, {kSp + "ab", -3}, {kSp + "abc", -4}}, A::bpe);
    CHECK(pieces_of(chain, "abc") == std::vector<std::string>{kSp + "abc"});
    // BPE does not look for the best total: ▁ab|c (-2) is out of reach once bc is merged (▁|a|bc, -4).
    const Model greedy = make_model(
        {{kSp, -1}, {"a", -1}, {"b", -1}, {"c", -1}, {"ab", -3}, {"bc", -2}, {kSp + "ab", -1}}, A::bpe);
    CHECK(pieces_of(greedy, "abc") == std::vector<std::string>{kSp, "a", "bc"});
    CHECK(pieces_of(greedy, "x") == std::vector<std::string>{kSp, "<0x78>"});
}

TEST_CASE("sentencepiece: BPE splits a merged unused piece back into its parts") {
    const Model model = make_model(
        {{kSp, -1}, {"a", -1}, {"b", -1}, {"ab", -2, Type::unused}}, Model::Algorithm::bpe);
    CHECK(pieces_of(model, "ab") == std::vector<std::string>{kSp, "a", "b"});
}

TEST_CASE("sentencepiece: decoding") {
    const Model model = make_model({{kSp, -1}, {"a", -1}, {kSp + "a", -1}, {"b" + kSp + "c", -1}});
    const auto id = [&](const std::string& piece) { return model.piece_to_id(piece); };
    SUBCASE("the leading space of the dummy prefix goes, the others become spaces") {
        CHECK(model.decode({id(kSp + "a"), id(kSp + "a"), id("b" + kSp + "c")}) == "a ab c");
        // While the output is still empty, each piece loses one leading ▁.
        CHECK(model.decode({id(kSp), id(kSp + "a")}) == "a");
        CHECK(model.decode({id(kSp), id(kSp), id("a")}) == "a");
    }
    SUBCASE("control pieces give nothing, <unk> gives ' ⁇ '") {
        CHECK(model.decode({2, id(kSp + "a"), 3, 1}) == "a");
        CHECK(model.decode({2, id(kSp + "a"), 0, id("a")}) == "a \xE2\x81\x87 a");
        CHECK(model.decode({0, id(kSp + "a")}) == " \xE2\x81\x87  a");
    }
    SUBCASE("byte pieces are assembled into UTF-8; each byte that starts no valid sequence is U+FFFD") {
        CHECK(model.decode({id("<0xC3>"), id("<0xA9>")}) == "\xC3\xA9");
        CHECK(model.decode({id("<0xE2>"), id("<0x82>"), id("<0xAC>"), id("a")}) == "\xE2\x82\xAC" "a");
        CHECK(model.decode({id("<0xFF>")}) == "\xEF\xBF\xBD");
        CHECK(model.decode({id("<0xC3>"), id("a")}) == "\xEF\xBF\xBD" "a");  // a lone lead byte
        CHECK(model.decode({id("<0xC3>"), id("<0x41>")}) == "\xEF\xBF\xBD" "A");
        CHECK(model.decode({id("<0xC0>"), id("<0x80>")}) == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
        // Byte pieces keep their ▁ bytes: no space comes of <0xE2><0x96><0x81>.
        CHECK(model.decode({id("<0xE2>"), id("<0x96>"), id("<0x81>"), id("a")}) == kSp + "a");
        // A byte run makes the output non-empty: the next piece keeps its ▁.
        CHECK(model.decode({id("<0x41>"), id(kSp + "a")}) == "A a");
    }
    SUBCASE("ids out of range are refused") {
        CHECK_THROWS_AS(model.decode({static_cast<int>(model.size())}), Error);
        CHECK_THROWS_AS(model.decode({-1}), Error);
    }
    SUBCASE("decode_pieces: an unknown piece is itself") {
        CHECK(model.decode_pieces({kSp + "a", "<unk>", "zz" + kSp}) == "a \xE2\x81\x87 zz" + kSp);
    }
}

TEST_CASE("sentencepiece: decode(encode(x)) is the normalized text with spaces back") {
    const Model model = make_model({{kSp, -1}, {"a", -1}, {kSp + "a", -1}, {"b", -2}});
    CHECK(model.decode(model.encode("  a  b ")) == "a b");
    CHECK(model.decode(model.encode("\xC3\xA9t\xC3\xA9")) == "\xC3\xA9t\xC3\xA9");
    CHECK(model.decode(model.encode("a\tb\xF0\x9F\x98\x80")) == "a\tb\xF0\x9F\x98\x80");
    CHECK(model.decode(model.encode("a\xFF")) == "a\xEF\xBF\xBD");
}

TEST_CASE("sentencepiece: JSON round trip") {
    const Model model = make_model({{kSp, -1.5f}, {"a", -0.1f}, {"ab", -3.25f, Type::user_defined},
                                    {"zz", -7, Type::unused}},
                                   Model::Algorithm::bpe, true, false, true);
    const nlohmann::json j = model;
    CHECK(j.at("algorithm") == "bpe");
    CHECK(j.at("add_dummy_prefix") == false);
    CHECK(j.at("pieces")[0] == nlohmann::json::array({"<unk>", 0.0, "unknown"}));
    CHECK(j.at("pieces")[6] == nlohmann::json::array({"ab", -3.25, "user_defined"}));
    const Model back = nlohmann::json::parse(j.dump()).get<Model>();
    CHECK(back == model);
    CHECK(back.encode("ab a") == model.encode("ab a"));
}

TEST_CASE("sentencepiece: malformed JSON is refused with a message naming the problem") {
    const nlohmann::json good = make_model({{kSp, -1}, {"a", -1}});
    const auto with = [&](const std::string& key, const nlohmann::json& value) {
        nlohmann::json j = good;
        j[key] = value;
        return j;
    };
    const auto with_piece = [&](std::size_t index, const nlohmann::json& value) {
        nlohmann::json j = good;
        j["pieces"][index] = value;
        return j;
    };
    CHECK(error_of(good) == "(accepted)");
    CHECK(error_of(nlohmann::json::array()).find("expected an object") != std::string::npos);
    CHECK(error_of(with("extra", 1)).find("unknown key 'extra'") != std::string::npos);
    nlohmann::json missing = good;
    missing.erase("byte_fallback");
    CHECK(error_of(missing).find("missing key 'byte_fallback'") != std::string::npos);
    CHECK(error_of(with("algorithm", "word")).find("unknown algorithm 'word'") != std::string::npos);
    CHECK(error_of(with("algorithm", 1)).find("'algorithm' must be a string") != std::string::npos);
    CHECK(error_of(with("add_dummy_prefix", 1)).find("'add_dummy_prefix' must be true or false") != std::string::npos);
    CHECK(error_of(with("pieces", "x")).find("'pieces' must be an array") != std::string::npos);
    CHECK(error_of(with("pieces", nlohmann::json::array())).find("has no pieces") != std::string::npos);
    CHECK(error_of(with_piece(5, {"a", -1})).find("piece 5 must be [text, score, type]") != std::string::npos);
    CHECK(error_of(with_piece(5, {"a", "-1", "normal"})).find("piece 5 must be") != std::string::npos);
    CHECK(error_of(with_piece(5, {"a", -1, "word"})).find("piece 5 has unknown type 'word'") != std::string::npos);
    CHECK(error_of(with_piece(5, {"a", std::numeric_limits<double>::infinity(), "normal"})).find("piece 5 has a score") !=
          std::string::npos);
    CHECK(error_of(with_piece(5, {"a", 1e300, "normal"})).find("not a finite float") != std::string::npos);
    CHECK(error_of(with_piece(5, {kSp, -1, "normal"})).find("piece 5 '" + kSp + "' repeats piece 4") !=
          std::string::npos);
    CHECK(error_of(with_piece(5, {"", -1, "normal"})).find("piece 5 is empty") != std::string::npos);
    CHECK(error_of(with_piece(5, {"\xC3", -1, "normal"})).find("piece 5 is not valid UTF-8") != std::string::npos);
    CHECK(error_of(with_piece(0, {"<unk>", 0, "control"})).find("piece 0 '<unk>' must be of type unknown") !=
          std::string::npos);
    CHECK(error_of(with_piece(5, {"?", 0, "unknown"})).find("only piece 0 may be") != std::string::npos);
    // Byte pieces: all 256 with byte_fallback, spelt <0xHH>, none without it.
    CHECK(error_of(with_piece(6, {"<0x0G>", 0, "byte"})).find("not spelt <0xHH>") != std::string::npos);
    CHECK(error_of(with_piece(6, {"<0x00>x", 0, "normal"})).find("byte piece <0x00> is missing") !=
          std::string::npos);
    CHECK(error_of(with("byte_fallback", false)).find("is a byte piece but byte_fallback is off") !=
          std::string::npos);
    nlohmann::json only_special = good;
    only_special["pieces"] = nlohmann::json::array({{"<unk>", 0, "unknown"}, {"<bos>", 0, "control"}});
    only_special["byte_fallback"] = false;
    CHECK(error_of(only_special).find("needs at least one normal") != std::string::npos);
    nlohmann::json huge = good;
    huge["pieces"] = nlohmann::json::array();
    huge["pieces"].get_ref<nlohmann::json::array_t&>().resize(Model::kMaxPieces + 1);
    CHECK(error_of(huge).find("more than the limit") != std::string::npos);
}

TEST_CASE("sentencepiece: a default-constructed model refuses to work") {
    const Model empty;
    CHECK_THROWS_AS(empty.encode("a"), Error);
    CHECK_THROWS_AS(empty.decode({}), Error);
}
