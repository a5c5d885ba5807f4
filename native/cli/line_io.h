// Lines in and out for the commands: a file (plain or .gz) or standard input/output ("" or "-"). Input is
// checked for valid UTF-8, and an error names the file or stdin line (unless check_utf8 is false: then the caller
// checks each line itself).
//
// Every write is checked: a full disk, a closed pipe or a file that cannot be written is an attend::Error naming
// the output and the system's reason, never a run that reports success with its output lost.
#pragma once
#include <string>
#include <vector>

namespace attend::cli {

std::vector<std::string> read_input_lines(const std::string& path, bool check_utf8 = true);
// The lines to the file, or to standard output (written and flushed).
void write_output_lines(const std::string& path, const std::vector<std::string>& lines);

// Appends to standard output; throws when the bytes do not get there (they may sit in stdio's buffer until
// finish_stdout()).
void write_stdout(const std::string& text);
// Flushes standard output; throws when anything written to it since the start has failed.
void finish_stdout();
// The whole file (truncated first), written, flushed and closed, each step checked.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace attend::cli
