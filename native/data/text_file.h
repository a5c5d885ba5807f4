// Reading and writing text files, plain or gzip-compressed (zlib decides by the gzip magic bytes, so a
// plain file named .gz or a .gz file named otherwise both work). Lines are checked for valid UTF-8.
#pragma once
#include <string>
#include <vector>

namespace attend {

// The whole file as bytes. Throws attend::Error naming the path when it is missing or unreadable, and when gzip
// data is corrupt or ends early (a truncated download or copy is never read as if it were the whole file).
std::string read_file_bytes(const std::string& path);

// The file's lines without their '\n' (a final newline does not start an empty line; a '\r' before the '\n'
// is dropped). Throws attend::Error naming the file and the 1-based line number on invalid UTF-8, unless
// check_utf8 is false (for a caller that reports bad lines itself and goes on with the others).
std::vector<std::string> read_lines(const std::string& path, bool check_utf8 = true);

// Writes the lines, each followed by '\n'; gzip-compressed when the path ends in ".gz".
void write_lines(const std::string& path, const std::vector<std::string>& lines);

// True for an existing path that is not a directory (regular files, pipes, /dev/stdin).
bool file_exists(const std::string& path);

}  // namespace attend
