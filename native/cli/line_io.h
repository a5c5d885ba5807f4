// Lines in and out for the commands: a file (plain or .gz) or standard input/output ("" or "-"). Input is
// checked for valid UTF-8, and an error names the file or stdin line (unless check_utf8 is false: then the caller
// checks each line itself).
#pragma once
#include <string>
#include <vector>

namespace attend::cli {

std::vector<std::string> read_input_lines(const std::string& path, bool check_utf8 = true);
void write_output_lines(const std::string& path, const std::vector<std::string>& lines);

}  // namespace attend::cli
