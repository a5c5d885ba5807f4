// Parallel text from any files: the corpus a person brings. A corpus source is one command-line value:
//
//   a.en,a.de                      two aligned files, one sentence a line (line i of one is line i of the other)
//   pairs.tsv                      a tab-separated file: source in column 1, target in column 2
//   pairs.tsv:columns=2,1          ... with the columns named (1-based): here source column 2, target column 1
//   a.en,a.de:weight=3             ... seen three times an epoch (oversampling; 0.5: half of its pairs; the
//                                  trainer applies it, train/file_corpus.h)
//
// Each file is plain or gzip-compressed (zlib decides by the magic bytes). Pairs stream through a callback: nothing
// holds a file's text, so a corpus of millions of pairs costs the memory of its encoded ids, not of its text.
//
// Nothing is lost silently. A line that cannot be a training pair is skipped and counted by reason (an empty side,
// invalid UTF-8, a line longer than max_line_bytes, a TSV line without the named columns); a whole source that cannot
// be read as text is an error naming the file and what was expected: two files of different line counts (both
// counts), a truncated or corrupt gzip stream, a NUL byte (a binary file), a source with no usable pair.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace attend {

struct CorpusSource {
    std::string spec;                // as given
    std::vector<std::string> files;  // one (TSV) or two (aligned)
    int source_column = 1, target_column = 2;  // TSV, 1-based
    double weight = 1;               // times each pair is seen an epoch; a fraction keeps that share of the pairs

    bool is_tsv() const { return files.size() == 1; }
};

// Parses one source spec (above); throws attend::Error naming the spec and what was expected.
CorpusSource parse_corpus_source(std::string_view spec);

// Why a line was not a pair. Order and names are the report's.
enum class SkipReason { empty_side, invalid_utf8, too_long, missing_column, count };
const char* skip_reason_name(SkipReason reason);

struct SkipCounts {
    std::int64_t by_reason[static_cast<int>(SkipReason::count)] = {};
    std::int64_t total() const;
    std::int64_t& operator[](SkipReason r) { return by_reason[static_cast<int>(r)]; }
    std::int64_t operator[](SkipReason r) const { return by_reason[static_cast<int>(r)]; }
    // "12 skipped: 10 with an empty side, 2 with invalid UTF-8" ("none skipped" when there are none).
    std::string describe() const;
};

// What one reading of a source found: the record a run and a model file keep of their data.
struct CorpusSourceReport {
    CorpusSource source;
    std::vector<std::uint64_t> file_bytes;   // per file, uncompressed
    std::vector<std::uint32_t> file_crc32;   // per file, zlib's CRC-32 of the text (uncompressed: `gzip -dc F | crc32`)
    std::int64_t lines = 0;                  // read (of each file, for two aligned files)
    std::int64_t pairs = 0;                  // passed to the callback
    SkipCounts skipped;
};
void to_json(nlohmann::json& j, const CorpusSourceReport& r);

struct CorpusReadOptions {
    std::size_t max_line_bytes = 4096;  // a longer line is skipped (too_long): no sentence is that long
};

// One good pair: the source and target text (valid UTF-8, neither empty after trimming spaces) and its 1-based
// line number. The views are valid during the call only.
using PairCallback = std::function<void(std::string_view source, std::string_view target, std::int64_t line)>;

// Reads the source from start to end, calling `pair` for each good pair in file order.
CorpusSourceReport read_corpus_source(const CorpusSource& source, const PairCallback& pair,
                                      const CorpusReadOptions& options = {});

}  // namespace attend
