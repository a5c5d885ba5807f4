// core/text/sentencepiece against libsentencepiece 0.1.97, on every line of the shared corpora: for a unigram and
// a BPE model that the library trains here, the portable encoder must give the library's ids for every line, the
// portable decoder the library's text for those ids, and decoding must give back the normalized line.
#include <doctest/doctest.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "data/data_dir.h"
#include "data/text_file.h"
#include "text/sentencepiece.h"
#include "text/sentencepiece_library.h"

using namespace attend;

namespace {

struct Corpus {
    std::string name;
    std::vector<std::string> lines;
};

// The first two tab-separated columns of each line, as two lines (source side first).
std::vector<std::string> first_two_columns(const std::vector<std::string>& rows) {
    std::vector<std::string> out;
    out.reserve(2 * rows.size());
    for (const std::string& row : rows) {
        const std::size_t tab = row.find('\t');
        const std::size_t tab2 = tab == std::string::npos ? tab : row.find('\t', tab + 1);
        out.push_back(row.substr(0, tab));
        out.push_back(tab == std::string::npos ? std::string() : row.substr(tab + 1, tab2 - tab - 1));
    }
    return out;
}

std::vector<Corpus> load_corpora(const std::string& data) {
    namespace fs = std::filesystem;
    std::vector<Corpus> corpora;
    for (const char* name : {"tatoeba/eng-deu.tsv.gz", "tatoeba/eng-fra.tsv.gz", "tatoeba/eng-cmn.tsv.gz"})
        corpora.push_back({name, first_two_columns(read_lines(data + "/" + name, false))});
    std::vector<fs::path> tests, news;
    for (const auto& entry : fs::directory_iterator(data + "/tatoeba/test"))
        if (entry.path().extension() == ".tsv") tests.push_back(entry.path());
    for (const auto& entry : fs::directory_iterator(data + "/newstest"))
        if (entry.is_regular_file()) news.push_back(entry.path());
    std::sort(tests.begin(), tests.end());
    std::sort(news.begin(), news.end());
    for (const auto& path : tests)
        corpora.push_back({"tatoeba/test/" + path.filename().string(), first_two_columns(read_lines(path, false))});
    for (const auto& path : news) corpora.push_back({"newstest/" + path.filename().string(), read_lines(path, false)});
    // Whitespace and byte cases the corpora may lack.
    corpora.push_back({"(edge cases)",
                       {"", " ", "   ", "  two  spaces  ", "tab\there", "new\nline", "cr\rhere", "nbsp\xC2\xA0here",
                        "ideographic\xE3\x80\x80space", "\xE2\x96\x81literal", "trailing\xE2\x96\x81",
                        "a \xE2\x96\x81 b", "bad\xFF" "byte", "lone\xC3", "\xC3\xA9\xC3", "surrogate\xED\xA0\x80",
                        "overlong\xC0\xAF", "emoji \xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
                        "\xEF\xBF\xBD", "<unk> <bos> <0x41>", "soh\x01" "control", "123 4567 89.0",
                        "\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82 \xF0\xA0\x80\x80"}});
    return corpora;
}

// A mixed sample: every 20th German and French pair, every 4th Chinese one (CJK, accents and rare characters all
// occur, some rarer than the character coverage keeps, so byte fallback is exercised too).
std::vector<std::string> training_sample(const std::vector<Corpus>& corpora) {
    std::vector<std::string> sample;
    for (std::size_t c = 0; c < 3; ++c) {
        const std::size_t step = corpora[c].name.find("cmn") != std::string::npos ? 4 : 20;
        const auto& lines = corpora[c].lines;
        for (std::size_t pair = 0; 2 * pair + 1 < lines.size(); pair += step) {
            sample.push_back(lines[2 * pair]);
            sample.push_back(lines[2 * pair + 1]);
        }
    }
    return sample;
}

std::string show_ids(const std::vector<int>& ids) {
    std::string out = "[";
    for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
    return out + "]";
}

// What decoding a line's ids must give: the normalized line with its spaces back, less the dummy prefix's.
std::string expected_round_trip(const SentencePieceModel& model, const std::string& line) {
    const std::string normalized = model.normalize(line);
    std::string out;
    const std::string_view space = SentencePieceModel::kSpaceSymbol;
    for (std::size_t i = 0; i < normalized.size();) {
        if (normalized.compare(i, space.size(), space) == 0) {
            out += ' ';
            i += space.size();
        } else {
            out += normalized[i++];
        }
    }
    if (model.options().add_dummy_prefix && !out.empty() && out[0] == ' ') out.erase(0, 1);
    return out;
}

struct Mismatches {
    std::mutex mutex;
    std::size_t encode = 0, decode = 0, round_trip = 0, pieces = 0;
    std::vector<std::string> examples;
    void add(std::size_t& counter, std::string example) {
        std::lock_guard<std::mutex> lock(mutex);
        ++counter;
        if (examples.size() < 8) examples.push_back(std::move(example));
    }
};

void check_parity(const std::vector<Corpus>& corpora, const std::vector<std::string>& sample,
                  SentencePieceModel::Algorithm algorithm, const char* name) {
    const auto start = std::chrono::steady_clock::now();
    SentencePieceTrainOptions options;
    options.algorithm = algorithm;
    options.vocab_size = 8000;
    options.character_coverage = 0.9995;
    options.num_threads = 2;
    const std::string proto = train_sentencepiece_proto(sample, options);
    sentencepiece::SentencePieceProcessor library;
    REQUIRE(library.LoadFromSerializedProto(proto).ok());
    const SentencePieceModel model = model_from_serialized_proto(proto);
    REQUIRE(model.size() == 8000);
    CHECK(model.options().algorithm == algorithm);
    CHECK(model.pieces()[1].text == "<pad>");
    CHECK(nlohmann::json(model).get<SentencePieceModel>() == model);
    const double train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Mismatches mismatches;
    std::size_t total = 0;
    std::atomic<std::size_t> with_bytes{0};  // lines that needed byte fallback
    std::atomic<std::size_t> leading_literal_space{0};  // lines left out of the round trip check
    std::printf("%s model (trained on %zu lines in %.1f s):\n", name, sample.size(), train_seconds);
    for (const Corpus& corpus : corpora) {
        const auto corpus_start = std::chrono::steady_clock::now();
        const auto work = [&](std::size_t first, std::size_t step) {
            for (std::size_t i = first; i < corpus.lines.size(); i += step) {
                const std::string& line = corpus.lines[i];
                const bool two_columns = corpus.name.find("tatoeba") == 0;
                const std::string where = corpus.name + " line " + std::to_string(i / (two_columns ? 2 : 1) + 1);
                const std::vector<int> expected = library.EncodeAsIds(line);
                const std::vector<int> ids = model.encode(line);
                if (ids != expected) {
                    mismatches.add(mismatches.encode, "encode " + where + ": '" + line + "'\n  library " +
                                                          show_ids(expected) + "\n  core    " + show_ids(ids));
                    continue;
                }
                if (std::any_of(ids.begin(), ids.end(), [&](int id) {
                        return model.pieces()[id].type == SentencePieceModel::PieceType::byte;
                    }))
                    ++with_bytes;
                const std::string decoded = model.decode(ids);
                const std::string library_decoded = library.DecodeIds(ids);
                if (decoded != library_decoded)
                    mismatches.add(mismatches.decode, "decode " + where + ": library '" + library_decoded +
                                                          "', core '" + decoded + "'");
                // A literal U+2581 right after the dummy prefix: the decoder strips leading "▁" from every piece
                // while the output is empty, so how much of it survives depends on the segmentation.
                const std::string doubled =
                    std::string(SentencePieceModel::kSpaceSymbol) + SentencePieceModel::kSpaceSymbol;
                if (model.normalize(line).compare(0, doubled.size(), doubled) == 0) {
                    ++leading_literal_space;
                    continue;
                }
                const std::string round_trip = expected_round_trip(model, line);
                if (decoded != round_trip)
                    mismatches.add(mismatches.round_trip,
                                   "round trip " + where + ": '" + decoded + "', normalized '" + round_trip + "'");
                if (i % 16 == 0 && model.encode_pieces(line) != library.EncodeAsPieces(line))
                    mismatches.add(mismatches.pieces, "pieces " + where + ": '" + line + "'");
            }
        };
        std::thread helper(work, 1, 2);
        work(0, 2);
        helper.join();
        total += corpus.lines.size();
        std::printf("  %-52s %8zu lines  %.1f s\n", corpus.name.c_str(), corpus.lines.size(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - corpus_start).count());
    }
    std::printf("  %zu lines compared (%zu with byte pieces, %zu starting with a literal U+2581 not round-tripped); "
                "mismatches: encode %zu, decode %zu, round trip %zu, pieces %zu\n",
                total, with_bytes.load(), leading_literal_space.load(), mismatches.encode, mismatches.decode,
                mismatches.round_trip, mismatches.pieces);
    for (const std::string& example : mismatches.examples) std::printf("  %s\n", example.c_str());
    std::fflush(stdout);
    CHECK(mismatches.encode == 0);
    CHECK(mismatches.decode == 0);
    CHECK(mismatches.round_trip == 0);
    CHECK(mismatches.pieces == 0);
}

}  // namespace

TEST_CASE("sentencepiece parity: the core's encoder and decoder give what libsentencepiece gives, on every line") {
    const std::string data = default_data_dir();
    if (!std::filesystem::is_directory(data + "/tatoeba") || !std::filesystem::is_directory(data + "/newstest"))
        FAIL("the shared data directory '" << data
                                           << "' (set ATTEND_DATA, default ../shared/data) has no tatoeba/ and newstest/: "
                                              "the parity test needs them");
    const std::vector<Corpus> corpora = load_corpora(data);
    const std::vector<std::string> sample = training_sample(corpora);
    SUBCASE("unigram") { check_parity(corpora, sample, SentencePieceModel::Algorithm::unigram, "unigram"); }
    SUBCASE("bpe") { check_parity(corpora, sample, SentencePieceModel::Algorithm::bpe, "bpe"); }
}
