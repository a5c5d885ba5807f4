// UTF-8 decoding and encoding. Text enters Attend as UTF-8; the tokenizer works on code points.
// Invalid input (bad lead byte, truncated or overlong sequence, surrogate, > U+10FFFF) throws attend::Error
// naming the byte offset, so a caller reading a file can add the line number.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace attend {

// Decodes the whole string; throws attend::Error("invalid UTF-8 at byte N: ...") on the first bad sequence.
std::u32string utf8_decode(std::string_view bytes);

std::string utf8_encode(std::u32string_view code_points);
void utf8_append(std::string& out, char32_t code_point);

// Byte offset of the first invalid sequence, or std::string_view::npos when the string is valid UTF-8.
std::size_t utf8_find_invalid(std::string_view bytes);

// Throws attend::Error naming `what` (e.g. "train.de.gz line 17") and the byte offset when invalid.
void utf8_validate(std::string_view bytes, const std::string& what);

}  // namespace attend
