// libFuzzer harness: any bytes as a corpus file read the way `attend train --train` reads it
// (native/data/parallel_corpus.cpp): the first byte picks the mode (a TSV with columns 1-3 named either way, or two
// aligned files split at the first form feed), the second the longest line kept, the rest is the file's text (gzip
// when it starts with gzip's magic, so truncated and corrupt streams are reached too).
// Contract under test: the file is read or refused with attend::Error, never a crash, a hang or unbounded memory;
// when read, every pair handed on is valid UTF-8, non-empty on both sides, no longer than the limit and free of
// tabs and line breaks, line numbers rise, and the lines add up: pairs + skipped lines = lines read.
#include "data/parallel_corpus.h"
#include "error.h"
#include "text/utf8.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void require(bool ok) {
    if (!ok) std::abort();
}

std::string scratch(const char* name) {
    return std::string(P_tmpdir) + "/attend_fuzz_corpus_" + std::to_string(getpid()) + "_" + name;
}

void write_file(const std::string& path, std::string_view bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    require(f != nullptr);
    require(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
    require(std::fclose(f) == 0);
}

bool clean_side(std::string_view s, std::size_t max_bytes) {
    return !s.empty() && s.size() <= max_bytes && attend::utf8_find_invalid(s) == std::string::npos &&
           s.find('\t') == std::string_view::npos && s.find('\n') == std::string_view::npos &&
           s.front() != ' ' && s.back() != ' ';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    const int mode = data[0] % 10;  // 0-8: TSV with columns (mode / 3 + 1, mode % 3 + 1); 9: two aligned files
    attend::CorpusReadOptions options;
    options.max_line_bytes = 1 + data[1] * 4u;
    const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
    static const std::string tsv = scratch("pairs.tsv"), src = scratch("a.src"), tgt = scratch("a.tgt");
    std::string spec;
    if (mode < 9) {
        write_file(tsv, text);
        spec = tsv + ":columns=" + std::to_string(mode / 3 + 1) + "," + std::to_string(mode % 3 + 1);
    } else {
        const std::size_t cut = text.find('\f');
        write_file(src, text.substr(0, cut));
        write_file(tgt, cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1));
        spec = src + "," + tgt;
    }
    try {
        const attend::CorpusSource source = attend::parse_corpus_source(spec);
        std::int64_t last_line = 0, pairs = 0;
        const attend::CorpusSourceReport report = attend::read_corpus_source(
            source,
            [&](std::string_view s, std::string_view t, std::int64_t line) {
                require(clean_side(s, options.max_line_bytes));
                require(clean_side(t, options.max_line_bytes));
                require(line > last_line);
                last_line = line;
                pairs++;
            },
            options);
        require(report.pairs == pairs);
        require(report.pairs + report.skipped.total() == report.lines);
        require(last_line <= report.lines);
    } catch (const attend::Error&) {
        // refused with a message: fine
    }
    return 0;
}
