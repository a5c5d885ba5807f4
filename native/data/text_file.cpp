#include "data/text_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

#include "data/line_reader.h"
#include "error.h"
#include "text/utf8.h"

namespace attend {

bool file_exists(const std::string& path) {
    struct stat info;
    return ::stat(path.c_str(), &info) == 0 && !S_ISDIR(info.st_mode);  // pipes such as /dev/fd/63 count
}

namespace {

// gzerror's message without the path it starts with (the errors here name the path themselves).
std::string gz_message(gzFile file, const std::string& path, int& code) {
    std::string message = gzerror(file, &code);
    if (message.rfind(path + ": ", 0) == 0) message.erase(0, path.size() + 2);
    return message;
}

}  // namespace

std::string read_file_bytes(const std::string& path) {
    if (!file_exists(path)) throw Error(path + ": cannot open (no such file)");
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
    gzbuffer(file, 1 << 17);
    std::string bytes;
    char buffer[1 << 16];
    while (true) {
        int got = gzread(file, buffer, sizeof buffer);
        if (got < 0) {
            int code = 0;
            const std::string message = gz_message(file, path, code);
            gzclose(file);
            if (code == Z_DATA_ERROR) throw Error(path + ": the gzip data is corrupt (" + message + ")");
            throw Error(path + ": read failed (" + message + ")");
        }
        if (got == 0) break;
        bytes.append(buffer, static_cast<std::size_t>(got));
    }
    // gzread reports a gzip stream that ends early as a plain end of file; only gzerror tells (Z_BUF_ERROR).
    int code = Z_OK;
    const std::string message = gz_message(file, path, code);
    gzclose(file);
    if (code == Z_BUF_ERROR)
        throw Error(path + ": the gzip data ends early after " + std::to_string(bytes.size()) +
                    " bytes of text (" + message + "): the file is truncated");
    if (code != Z_OK) throw Error(path + ": read failed (" + message + ")");
    return bytes;
}

std::vector<std::string> read_lines(const std::string& path, bool check_utf8) {
    // Read a line at a time: the lines are held, never the file besides them, and a line of more than this (a file
    // that is no text: one without line breaks) is refused before it is held.
    constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;
    if (path.empty() || path == "-") throw Error(path + ": cannot open (no such file)");
    LineReader in(path, LineReader::Nul::keep, kMaxLineBytes);
    std::vector<std::string> lines;
    for (std::string line; in.next(line);) {
        const std::string where = path + " line " + std::to_string(in.lines());
        if (in.cut())
            throw Error(where + ": longer than " + std::to_string(kMaxLineBytes) +
                        " bytes (expected text, one sentence a line)");
        if (check_utf8) {
            const std::size_t bad = utf8_find_invalid(line);
            if (bad != std::string::npos)
                throw Error(where + ": invalid UTF-8 at byte " + std::to_string(bad) + " of the line (expected UTF-8 text)");
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
    bool compress = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    std::string bytes;
    for (const std::string& line : lines) {
        bytes += line;
        bytes += '\n';
    }
    if (compress) {
        gzFile file = gzopen(path.c_str(), "wb");
        if (!file) throw Error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
        errno = 0;
        const bool ok = bytes.empty() || gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())) > 0;
        int code = Z_OK;
        const std::string message = ok ? std::string() : gz_message(file, path, code);
        const int write_error = errno;
        errno = 0;
        // gzclose writes what zlib still holds (all of a small file): its failure is a write failure too.
        const int closed = gzclose(file);
        if (!ok || closed != Z_OK) {
            const int error = !ok ? write_error : errno;
            throw Error(path + ": write failed (" +
                        (error != 0 ? std::string(std::strerror(error)) : message.empty() ? "zlib error" : message) + ")");
        }
        return;
    }
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) throw Error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
    errno = 0;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size() && std::fflush(file) == 0;
    const int write_error = errno;
    errno = 0;
    const bool closed = std::fclose(file) == 0;
    if (!ok || !closed) {
        const int error = !ok ? write_error : errno;
        throw Error(path + ": write failed (" + (error != 0 ? std::strerror(error) : "unknown reason") + ")");
    }
}

}  // namespace attend
