// Shared by the fuzz targets: deterministic piece sizes drawn from the input, and the checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace fuzz {

// Piece sizes 1..max_piece from a small LCG, so every input replays the same split.
class Pieces {
public:
    Pieces(uint32_t seed, std::size_t max_piece) : state_(seed | 1), max_piece_(max_piece) {}
    std::size_t next()
    {
        state_ = state_ * 1103515245u + 12345u;
        return 1 + (state_ >> 16) % max_piece_;
    }

private:
    uint32_t state_;
    std::size_t max_piece_;
};

// Feeds data[0, len) to feed(ptr, n) in pieces drawn from pieces.
template <typename Feed>
void feed_in_pieces(const char *data, std::size_t len, Pieces &pieces, Feed &&feed)
{
    for (std::size_t done = 0; done < len;) {
        std::size_t n = pieces.next();
        if (n > len - done) n = len - done;
        feed(data + done, n);
        done += n;
    }
}

[[noreturn]] inline void fail(const char *what)
{
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

inline void check(bool ok, const char *what)
{
    if (!ok) fail(what);
}

// Well-formed UTF-8: shortest forms, no surrogates, nothing past U+10FFFF.
inline bool valid_utf8(const unsigned char *s, std::size_t n)
{
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = s[i];
        std::size_t len;
        uint32_t cp, min;
        if (c < 0x80) { ++i; continue; }
        if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; min = 0x80; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; min = 0x800; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; min = 0x10000; }
        else return false;
        if (n - i < len) return false;
        for (std::size_t k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

}  // namespace fuzz
