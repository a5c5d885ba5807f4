#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "data/multi30k.h"
#include "data/parallel_text.h"
#include "data/text_file.h"
#include "error.h"

using namespace attend;

namespace {

const std::string kFixtures = std::string(ATTEND_FIXTURES_DIR) + "/text/";

std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("text files: gzip and plain, CRLF and a missing final newline") {
    CHECK(read_lines(kFixtures + "two_lines.de.gz") == std::vector<std::string>{"Zwei Hunde spielen.", "Ein Mann läuft."});
    CHECK(read_lines(kFixtures + "two_lines.en.txt") == std::vector<std::string>{"Two dogs play.", "A man runs."});
    ParallelText pair = load_parallel_text(kFixtures + "two_lines.en.txt", kFixtures + "two_lines.de.gz");
    CHECK(pair.source.size() == 2);
    CHECK(pair.target[1] == "Ein Mann läuft.");
}

TEST_CASE("text files: write and read back, plain and gzip") {
    const std::vector<std::string> lines = {"ein", "", "zwei drei"};
    for (const std::string name : {"attend_test_text_file.txt", "attend_test_text_file.gz"}) {
        std::string path = std::string(P_tmpdir) + "/" + name;
        write_lines(path, lines);
        CHECK(read_lines(path) == lines);
        std::remove(path.c_str());
    }
}

TEST_CASE("text files: errors name the file, the line and what was expected") {
    std::string missing = error_of([] { read_lines(kFixtures + "no_such_file.gz"); });
    CHECK(missing.find("no_such_file.gz") != std::string::npos);
    CHECK(missing.find("no such file") != std::string::npos);

    std::string invalid = error_of([] { read_lines(kFixtures + "invalid_utf8.txt"); });
    CHECK(invalid.find("invalid_utf8.txt line 3") != std::string::npos);
    CHECK(invalid.find("invalid UTF-8 at byte 4") != std::string::npos);

    std::string mismatch = error_of([] { load_parallel_text(kFixtures + "mismatch.src.txt", kFixtures + "mismatch.tgt.txt"); });
    CHECK(mismatch.find("mismatch.src.txt has 3 lines") != std::string::npos);
    CHECK(mismatch.find("mismatch.tgt.txt has 2") != std::string::npos);
}

TEST_CASE("Multi30K paths and split names") {
    CHECK(multi30k_path("D", "val", Lang::fr, TextForm::raw) == "D/multi30k/val.fr.gz");
    CHECK(multi30k_path("D", "test_2016_flickr", Lang::de, TextForm::tok) ==
          "D/multi30k/tok/test_2016_flickr.lc.norm.tok.de.gz");
    std::string unknown = error_of([] { multi30k_path("D", "test2016", Lang::en, TextForm::raw); });
    CHECK(unknown.find("'test2016'") != std::string::npos);
    CHECK(unknown.find("test_2016_flickr") != std::string::npos);
    CHECK_THROWS_AS(load_multi30k("D", "val", Lang::en, Lang::en, TextForm::raw), Error);
    std::string missing = error_of([] { load_multi30k("/nonexistent", "val", Lang::en, Lang::de, TextForm::raw); });
    CHECK(missing.find("/nonexistent/multi30k/val.en.gz") != std::string::npos);
}

TEST_CASE("text files: a truncated or corrupt gzip file is an error naming it, never a shorter text") {
    // Named after the process: test runs of other checkouts may share the folder.
    const std::string dir = std::string(P_tmpdir) + "/attend_test_" + std::to_string(getpid()) + "_";
    const std::string whole = dir + "whole.gz";
    std::vector<std::string> lines;
    for (int i = 0; i < 3000; i++) lines.push_back("line " + std::to_string(i * 7919 % 3001) + " of a text that is long enough");
    write_lines(whole, lines);
    REQUIRE(read_file_bytes(whole).size() > 50000);
    std::string gz;
    {
        std::FILE* f = std::fopen(whole.c_str(), "rb");
        REQUIRE(f);
        char buffer[4096];
        for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) gz.append(buffer, n);
        std::fclose(f);
    }
    REQUIRE(gz.size() > 200);
    auto write_raw = [&](const std::string& name, const std::string& content) {
        const std::string path = dir + name;
        std::FILE* f = std::fopen(path.c_str(), "wb");
        REQUIRE(f);
        REQUIRE(std::fwrite(content.data(), 1, content.size(), f) == content.size());
        std::fclose(f);
        return path;
    };

    // Cut in the middle of the deflate data, and just before the 8-byte trailer (CRC and length).
    for (size_t keep : {gz.size() / 2, gz.size() - 9}) {
        CAPTURE(keep);
        const std::string path = write_raw("truncated.gz", gz.substr(0, keep));
        const std::string e = error_of([&] { read_lines(path); });
        CHECK(e.find(path + ": ") != std::string::npos);
        CHECK(e.find("truncated") != std::string::npos);
        // Training reads its data through the same reader.
        CHECK(error_of([&] { load_parallel_text(path, path); }).find("truncated") != std::string::npos);
        std::remove(path.c_str());
    }
    // A flipped bit in the CRC, bytes overwritten inside the deflate data, and a damaged header (method 9).
    std::string bad_crc = gz, bad_data = gz, bad_header = gz;
    bad_crc[gz.size() - 8] = static_cast<char>(bad_crc[gz.size() - 8] ^ 1);
    for (size_t i = gz.size() / 2; i < gz.size() / 2 + 16; i++) bad_data[i] = static_cast<char>(0xff);
    bad_header[2] = 9;
    for (const std::string* corrupt : {&bad_crc, &bad_data, &bad_header}) {
        const std::string path = write_raw("corrupt.gz", *corrupt);
        const std::string e = error_of([&] { read_lines(path); });
        CAPTURE(e);
        CHECK(e.find(path + ": ") != std::string::npos);
        CHECK(e.find("corrupt") != std::string::npos);
        std::remove(path.c_str());
    }
    std::remove(whole.c_str());
}

TEST_CASE("text files: a line of tens of megabytes (a file that is no text) is an error before it is held") {
    // 32 MiB without a line break, gzip-compressed to a few kilobytes: what a 1 MB download can inflate to.
    const std::string path = std::string(P_tmpdir) + "/attend_test_long_line_" + std::to_string(getpid()) + ".gz";
    REQUIRE(std::system(("head -c 33554432 /dev/zero | tr '\\0' 'a' | gzip -c > '" + path + "'").c_str()) == 0);
    const std::string message = error_of([&] { read_lines(path); });
    CHECK(message == path + " line 1: longer than 16777216 bytes (expected text, one sentence a line)");
    std::remove(path.c_str());
}
