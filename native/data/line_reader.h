// Lines of a text file, plain or gzip (zlib decides by the magic bytes), or of standard input, read in blocks: a
// line at a time whatever the input's size, so a reader holds one block and one line.
//
// Standard input is read with read(2) as the bytes arrive, never waiting to fill a block: a pipe that delivers one
// line and then pauses has that line ready at once (`ready()` says whether the next line can be had without
// waiting, so that a caller can work on what it has instead of blocking). A read interrupted by a signal returns
// to the caller (`next` gives false and `interrupted()` is true), so that a stop request is seen while waiting.
//
// A truncated or corrupt gzip stream is an error naming the file, never a shorter text. A NUL byte is an error
// (the input is not a text file) unless the reader is told to let it through for a caller that handles it.
#pragma once
#include <cstdint>
#include <string>

namespace attend {

class LineReader {
public:
    enum class Nul { error, keep };

    // "" or "-": standard input. max_line_bytes > 0: a longer line is cut to that many bytes and cut() says so (the
    // rest of it is read past, never held), so that a file without line breaks cannot fill the memory.
    explicit LineReader(const std::string& path, Nul nul = Nul::error, std::size_t max_line_bytes = 0);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // The next line without its '\n' (and a '\r' before it); false at the end of the input, or when a signal
    // interrupted the wait for it (interrupted() tells which; a later call goes on reading).
    bool next(std::string& line);
    // True when next() would return without waiting for more input (a whole line is buffered, or the input is a
    // file, or the end of the input has been seen).
    bool ready();
    bool interrupted() const { return interrupted_; }
    // Whether the line next() gave last was longer than max_line_bytes (and so cut).
    bool cut() const { return cut_; }

    const std::string& name() const { return name_; }
    std::int64_t lines() const { return lines_; }
    std::uint64_t bytes() const { return bytes_; }  // of text (after decompression)
    std::uint32_t crc32() const { return crc_; }    // of the text read so far

private:
    bool fill();  // false at the end of the input or on an interrupted wait

    std::string name_;
    Nul nul_;
    std::size_t max_line_bytes_ = 0;
    bool cut_ = false, cutting_ = false;
    void* gz_ = nullptr;  // gzFile, for a named file
    bool stdin_ = false, eof_ = false, interrupted_ = false;
    std::string pending_;  // a line begun before an interrupted wait
    bool partial_ = false;  // pending_ holds the start of a line (perhaps empty: a lone '\r')
    char buffer_[1 << 16];
    std::size_t at_ = 0, end_ = 0;
    std::int64_t lines_ = 0;
    std::uint64_t bytes_ = 0;
    std::uint32_t crc_ = 0;
};

}  // namespace attend
