#include "cli/line_io.h"

#include "data/text_file.h"
#include "text/utf8.h"

#include <cstdio>
#include <iostream>

namespace attend::cli {

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
    for (const std::string& line : lines) std::printf("%s\n", line.c_str());
}

}  // namespace attend::cli
