#include "cli/line_io.h"

#include "data/text_file.h"
#include "error.h"
#include "text/utf8.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace attend::cli {

namespace {

[[noreturn]] void stdout_failed(int error) {
    throw Error(std::string("cannot write standard output: ") +
                (error != 0 ? std::strerror(error) : "the stream is in an error state"));
}

}  // namespace

std::vector<std::string> read_input_lines(const std::string& path, bool check_utf8) {
    if (!path.empty() && path != "-") return read_lines(path, check_utf8);
    std::vector<std::string> lines;
    std::string line;
    for (std::size_t number = 1; std::getline(std::cin, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (check_utf8) utf8_validate(line, "stdin line " + std::to_string(number));
        lines.push_back(line);
    }
    return lines;
}

void write_output_lines(const std::string& path, const std::vector<std::string>& lines) {
    if (!path.empty() && path != "-") {
        write_lines(path, lines);
        return;
    }
    for (const std::string& line : lines) write_stdout(line + "\n");
    finish_stdout();
}

void write_stdout(const std::string& text) {
    errno = 0;
    // A buffer flush that failed earlier leaves the error flag set while later writes may still "succeed" into the
    // buffer: the flag is checked as well as the count.
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::ferror(stdout)) stdout_failed(errno);
}

void finish_stdout() {
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) stdout_failed(errno);
}

void write_text_file(const std::string& path, const std::string& text) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) throw Error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
    errno = 0;
    const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0;
    const int write_error = errno;
    errno = 0;
    const bool closed = std::fclose(file) == 0;
    const int error = !written ? write_error : errno;
    if (!written || !closed)
        throw Error(path + ": write failed (" + (error != 0 ? std::strerror(error) : "unknown reason") + ")");
}

}  // namespace attend::cli
