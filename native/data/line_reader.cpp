#include "data/line_reader.h"

#include <poll.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "data/text_file.h"
#include "error.h"

namespace attend {

LineReader::LineReader(const std::string& path, Nul nul, std::size_t max_line_bytes)
    : nul_(nul), max_line_bytes_(max_line_bytes) {
    if (path.empty() || path == "-") {
        name_ = "standard input";
        stdin_ = true;
        return;
    }
    name_ = path;
    if (!file_exists(path)) throw Error(path + ": cannot open (no such file)");
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
    gzbuffer(file, 1 << 17);
    gz_ = file;
}

LineReader::~LineReader() {
    if (gz_) gzclose(static_cast<gzFile>(gz_));
}

bool LineReader::ready() {
    if (!stdin_ || eof_) return true;
    if (std::memchr(buffer_ + at_, '\n', end_ - at_)) return true;
    pollfd p{STDIN_FILENO, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;  // readable, or at its end (POLLHUP): either way read() will not wait
}

bool LineReader::next(std::string& line) {
    interrupted_ = false;
    while (true) {
        if (at_ == end_ && !fill()) {
            if (interrupted_) return false;  // pending_ keeps what has come of this line
            if (!partial_) return false;
            break;  // a last line without '\n'
        }
        const char* nl = static_cast<const char*>(std::memchr(buffer_ + at_, '\n', end_ - at_));
        const std::size_t stop = nl ? static_cast<std::size_t>(nl - buffer_) : end_;
        std::size_t take = stop - at_;
        if (max_line_bytes_ > 0 && pending_.size() + take > max_line_bytes_) {
            take = max_line_bytes_ - std::min(pending_.size(), max_line_bytes_);
            cutting_ = true;
        }
        pending_.append(buffer_ + at_, take);
        partial_ = true;
        at_ = nl ? stop + 1 : end_;
        if (nl) break;
    }
    partial_ = false;
    cut_ = cutting_;
    cutting_ = false;
    line.swap(pending_);
    pending_.clear();
    lines_++;
    if (nul_ == Nul::error && line.find('\0') != std::string::npos)
        throw Error(name_ + " line " + std::to_string(lines_) +
                    ": a NUL byte: this is not a text file (expected UTF-8 text, one sentence a line)");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

bool LineReader::fill() {
    if (eof_) return false;
    if (stdin_) {
        const ssize_t got = ::read(STDIN_FILENO, buffer_, sizeof buffer_);
        if (got < 0) {
            if (errno == EINTR) {
                interrupted_ = true;
                return false;
            }
            throw Error(name_ + ": read failed (" + std::strerror(errno) + ")");
        }
        if (got == 0) {
            eof_ = true;
            return false;
        }
        at_ = 0;
        end_ = static_cast<std::size_t>(got);
    } else {
        gzFile file = static_cast<gzFile>(gz_);
        const int got = gzread(file, buffer_, sizeof buffer_);
        int code = Z_OK;
        if (got < 0) {
            const std::string message = gzerror(file, &code);
            if (code == Z_DATA_ERROR) throw Error(name_ + ": the gzip data is corrupt (" + message + ")");
            throw Error(name_ + ": read failed (" + message + ")");
        }
        if (got == 0) {
            // gzread reports a gzip stream that ends early as a plain end of file; only gzerror tells.
            const std::string message = gzerror(file, &code);
            if (code == Z_BUF_ERROR)
                throw Error(name_ + ": the gzip data ends early after " + std::to_string(bytes_) + " bytes of text (" +
                            message + "): the file is truncated");
            eof_ = true;
            return false;
        }
        at_ = 0;
        end_ = static_cast<std::size_t>(got);
    }
    bytes_ += end_;
    crc_ = static_cast<std::uint32_t>(::crc32(crc_, reinterpret_cast<const Bytef*>(buffer_), static_cast<uInt>(end_)));
    return true;
}

}  // namespace attend
