// Parallel text from any files (data/parallel_corpus.h): the specs a person writes, every pair of a good file, every
// bad line skipped and counted by reason, and every unreadable file an error that names it.
#include <doctest/doctest.h>

#include "data/parallel_corpus.h"
#include "data/text_file.h"
#include "error.h"
#include "trainer_test_util.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

using namespace attend;
using attend_test::error_of;

namespace {

struct Pair {
    std::string source, target;
    std::int64_t line;
    bool operator==(const Pair& o) const { return source == o.source && target == o.target && line == o.line; }
};

std::vector<Pair> pairs_of(const std::string& spec, CorpusSourceReport* report = nullptr, CorpusReadOptions ro = {}) {
    std::vector<Pair> out;
    CorpusSourceReport r = read_corpus_source(
        parse_corpus_source(spec),
        [&](std::string_view s, std::string_view t, std::int64_t line) { out.push_back({std::string(s), std::string(t), line}); },
        ro);
    if (report) *report = r;
    return out;
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

struct Dir {
    std::string path = attend_test::fresh_run_dir("parallel-corpus");
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() { std::filesystem::remove_all(path); }
    std::string operator/(const std::string& name) const { return path + "/" + name; }
};

}  // namespace

TEST_CASE("corpus specs: two aligned files or a TSV, with columns and a weight") {
    CorpusSource two = parse_corpus_source("a.en,b.de");
    CHECK(two.files == std::vector<std::string>{"a.en", "b.de"});
    CHECK_FALSE(two.is_tsv());
    CHECK(two.weight == 1);

    CorpusSource tsv = parse_corpus_source("pairs.tsv.gz:columns=2,1:weight=2.5");
    CHECK(tsv.files == std::vector<std::string>{"pairs.tsv.gz"});
    CHECK(tsv.is_tsv());
    CHECK(tsv.source_column == 2);
    CHECK(tsv.target_column == 1);
    CHECK(tsv.weight == 2.5);

    // A ':' in a path stays part of it when no key=value follows.
    CHECK(parse_corpus_source("C:data.tsv").files == std::vector<std::string>{"C:data.tsv"});

    CHECK(error_of([] { parse_corpus_source("a,b,c"); }).find("3 files") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source("a.tsv:columns=1"); }).find("two column numbers") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source("a.tsv:columns=0,2"); }).find("not a column number") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source("a.tsv:columns=2,2"); }).find("the same") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source("a.tsv:weight=0"); }).find("above 0") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source("a.tsv:weight=x"); }).find("weight=x") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source("a.tsv:color=red"); }).find("unknown option 'color'") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source("a.en,b.de:columns=1,2"); }).find("for a TSV file") != std::string::npos);
    CHECK(error_of([] { parse_corpus_source(""); }).find("empty") != std::string::npos);
}

TEST_CASE("a TSV gives every good pair with its line; bad lines are skipped and counted by reason") {
    Dir dir;
    const std::string tsv = dir / "pairs.tsv";
    write_bytes(tsv,
                "I like fish.\t我喜欢吃鱼。\tattribution #1\n"  // 1 good
                "\t空的\tx\n"                                  // 2 empty source
                "Only one column\n"                            // 3 missing column
                "Bad \xff byte\tbyte\tx\n"                     // 4 invalid UTF-8
                "  Padded.  \t  两边有空格。 \r\n"             // 5 good, trimmed, CRLF
                "Good night.\t晚安。");                        // 6 good, no final newline
    CorpusSourceReport r;
    const std::vector<Pair> got = pairs_of(tsv, &r);
    CHECK(got == std::vector<Pair>{{"I like fish.", "我喜欢吃鱼。", 1}, {"Padded.", "两边有空格。", 5}, {"Good night.", "晚安。", 6}});
    CHECK(r.lines == 6);
    CHECK(r.pairs == 3);
    CHECK(r.skipped[SkipReason::empty_side] == 1);
    CHECK(r.skipped[SkipReason::missing_column] == 1);
    CHECK(r.skipped[SkipReason::invalid_utf8] == 1);
    CHECK(r.skipped.describe() == "3 skipped: 1 with an empty side, 1 with invalid UTF-8, 1 without the named columns");

    // The columns the other way round: the Chinese side is the source.
    const std::vector<Pair> swapped = pairs_of(tsv + ":columns=2,1");
    REQUIRE(swapped.size() == 3);
    CHECK(swapped[0].source == "我喜欢吃鱼。");
    CHECK(swapped[0].target == "I like fish.");

    // The record names the file, its size and CRC-32, and the counts.
    const nlohmann::json j = r;
    CHECK(j["files"][0]["path"] == tsv);
    CHECK(j["files"][0]["bytes"].get<std::uint64_t>() == std::filesystem::file_size(tsv));
    CHECK(j["files"][0]["crc32"].get<std::string>().size() == 8);
    CHECK(j["skipped"]["missing_column"] == 1);
}

TEST_CASE("a line over the length limit is skipped as too long, not cut") {
    Dir dir;
    write_bytes(dir / "a.en", "short\n" + std::string(100, 'x') + "\nalso short\n");
    write_bytes(dir / "a.de", "kurz\nlang\nauch kurz\n");
    CorpusReadOptions ro;
    ro.max_line_bytes = 50;
    CorpusSourceReport r;
    const std::vector<Pair> got = pairs_of(dir / "a.en" + "," + dir / "a.de", &r, ro);
    CHECK(got == std::vector<Pair>{{"short", "kurz", 1}, {"also short", "auch kurz", 3}});
    CHECK(r.skipped[SkipReason::too_long] == 1);
}

TEST_CASE("a line of megabytes is skipped as too long without being held, in a TSV and in aligned files") {
    Dir dir;
    const std::string huge(8u << 20, 'x');
    write_bytes(dir / "big.tsv", "a dog\tein Hund\n" + huge + "\t" + huge + "\nthe cat\tdie Katze\n");
    CorpusSourceReport report;
    CHECK(pairs_of(dir / "big.tsv", &report) == std::vector<Pair>{{"a dog", "ein Hund", 1}, {"the cat", "die Katze", 3}});
    CHECK(report.skipped[SkipReason::too_long] == 1);
    CHECK(report.lines == 3);
    write_bytes(dir / "big.en", "a dog\n" + huge + "\nthe cat\n");
    write_bytes(dir / "big.de", "ein Hund\nkurz\ndie Katze\n");
    CHECK(pairs_of(dir / "big.en" + "," + dir / "big.de", &report).size() == 2);
    CHECK(report.skipped[SkipReason::too_long] == 1);
}

TEST_CASE("two files of different lengths: an error naming both files and both counts") {
    Dir dir;
    write_bytes(dir / "a.en", "one\ntwo\nthree\n");
    write_bytes(dir / "a.de", "eins\nzwei\n");
    const std::string message = error_of([&] { pairs_of(dir / "a.en" + "," + dir / "a.de"); });
    CHECK(message.find(dir / "a.en" + " has 3 lines") != std::string::npos);
    CHECK(message.find(dir / "a.de" + " has 2") != std::string::npos);
    // The other way round too: the longer file is counted to its end.
    const std::string reverse = error_of([&] { pairs_of(dir / "a.de" + "," + dir / "a.en"); });
    CHECK(reverse.find("has 2 lines") != std::string::npos);
    CHECK(reverse.find("has 3") != std::string::npos);
}

TEST_CASE("a tab inside a line of an aligned file is a space: the pair can be written as TSV") {
    Dir dir;
    write_bytes(dir / "b.en", "a\tdog runs\n\tthe cat\t\n");
    write_bytes(dir / "b.de", "ein Hund\trennt\ndie Katze\n");
    const std::vector<Pair> pairs = pairs_of(dir / "b.en" + "," + dir / "b.de");
    CHECK(pairs == std::vector<Pair>{{"a dog runs", "ein Hund rennt", 1}, {"the cat", "die Katze", 2}});
}

TEST_CASE("gzip files stream like plain ones; a truncated one is an error, not a shorter corpus") {
    Dir dir;
    std::vector<std::string> en, de;
    for (int i = 0; i < 20000; i++) {
        en.push_back("sentence number " + std::to_string(i));
        de.push_back("Satz Nummer " + std::to_string(i));
    }
    write_lines(dir / "big.en.gz", en);
    write_lines(dir / "big.de.gz", de);
    CorpusSourceReport r;
    const std::vector<Pair> got = pairs_of(dir / "big.en.gz" + "," + dir / "big.de.gz", &r);
    REQUIRE(got.size() == 20000);
    CHECK(got[12345].source == "sentence number 12345");
    CHECK(got[12345].target == "Satz Nummer 12345");
    CHECK(got[12345].line == 12346);

    // Cut the gzip file in the middle.
    std::ifstream in(dir / "big.de.gz", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    write_bytes(dir / "cut.de.gz", bytes.substr(0, bytes.size() / 2));
    const std::string message = error_of([&] { pairs_of(dir / "big.en.gz" + "," + dir / "cut.de.gz"); });
    CHECK(message.find("cut.de.gz") != std::string::npos);
    CHECK(message.find("truncated") != std::string::npos);
}

TEST_CASE("a binary file, a missing file, an empty file, a file without one usable pair: clear errors") {
    Dir dir;
    write_bytes(dir / "binary.tsv", std::string("a\tb\n\x01\x02\0\x03\tz\n", 12));
    CHECK(error_of([&] { pairs_of(dir / "binary.tsv"); }).find("not a text file") != std::string::npos);
    CHECK(error_of([&] { pairs_of(dir / "missing.tsv"); }).find("no such file") != std::string::npos);
    write_bytes(dir / "empty.tsv", "");
    CHECK(error_of([&] { pairs_of(dir / "empty.tsv"); }).find("is empty") != std::string::npos);
    write_bytes(dir / "one_column.tsv", "a\nb\nc\n");
    const std::string none = error_of([&] { pairs_of(dir / "one_column.tsv"); });
    CHECK(none.find("no usable pair in 3 lines") != std::string::npos);
    CHECK(none.find("columns=") != std::string::npos);
}
