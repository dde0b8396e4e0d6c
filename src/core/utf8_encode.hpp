// UTF-8 encoding of one code point (the caller guarantees a valid scalar value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace simhash {

// Writes the UTF-8 bytes of cp to out (room for 4) and returns how many.
inline std::size_t encode_utf8(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = char(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = char(0xC0 | (cp >> 6));
        out[1] = char(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = char(0xE0 | (cp >> 12));
        out[1] = char(0x80 | ((cp >> 6) & 0x3F));
        out[2] = char(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = char(0xF0 | (cp >> 18));
    out[1] = char(0x80 | ((cp >> 12) & 0x3F));
    out[2] = char(0x80 | ((cp >> 6) & 0x3F));
    out[3] = char(0x80 | (cp & 0x3F));
    return 4;
}

inline void append_utf8(uint32_t cp, std::string &out)
{
    char bytes[4];
    out.append(bytes, encode_utf8(cp, bytes));
}

}  // namespace simhash
