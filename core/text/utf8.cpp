#include "text/utf8.h"

#include "error.h"

namespace attend {
namespace {

// Decodes one code point starting at bytes[i]; returns its length, or 0 when the sequence is invalid.
std::size_t decode_one(std::string_view bytes, std::size_t i, char32_t& cp) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    unsigned char lead = byte(i);
    std::size_t length;
    char32_t min_value;
    if (lead < 0x80) {
        cp = lead;
        return 1;
    } else if ((lead & 0xE0) == 0xC0) {
        length = 2, cp = lead & 0x1F, min_value = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, cp = lead & 0x0F, min_value = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, cp = lead & 0x07, min_value = 0x10000;
    } else {
        return 0;
    }
    if (i + length > bytes.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        unsigned char next = byte(i + k);
        if ((next & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (next & 0x3F);
    }
    if (cp < min_value || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return length;
}

[[noreturn]] void throw_invalid(std::size_t offset, const std::string& what) {
    throw Error((what.empty() ? std::string("text") : what) + ": invalid UTF-8 at byte " +
                std::to_string(offset) + " (expected a valid UTF-8 sequence)");
}

}  // namespace

std::size_t utf8_find_invalid(std::string_view bytes) {
    char32_t cp;
    for (std::size_t i = 0; i < bytes.size();) {
        std::size_t length = decode_one(bytes, i, cp);
        if (length == 0) return i;
        i += length;
    }
    return std::string_view::npos;
}

void utf8_validate(std::string_view bytes, const std::string& what) {
    std::size_t bad = utf8_find_invalid(bytes);
    if (bad != std::string_view::npos) throw_invalid(bad, what);
}

std::u32string utf8_decode(std::string_view bytes) {
    std::u32string out;
    out.reserve(bytes.size());
    char32_t cp;
    for (std::size_t i = 0; i < bytes.size();) {
        std::size_t length = decode_one(bytes, i, cp);
        if (length == 0) throw_invalid(i, "");
        out.push_back(cp);
        i += length;
    }
    return out;
}

void utf8_append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string utf8_encode(std::u32string_view code_points) {
    std::string out;
    out.reserve(code_points.size());
    for (char32_t cp : code_points) utf8_append(out, cp);
    return out;
}

}  // namespace attend
