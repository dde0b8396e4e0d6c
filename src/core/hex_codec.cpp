#include "hex_codec.hpp"

namespace simhash {
namespace {

bool is_space(char c) noexcept
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int hex_value(char c) noexcept
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

HexParse parse_hex(std::string_view text) noexcept
{
    std::size_t begin = 0;
    std::size_t end = text.size();
    while (begin < end && is_space(text[begin])) ++begin;
    while (end > begin && is_space(text[end - 1])) --end;

    std::size_t pos = begin;
    if (end - pos >= 2 && text[pos] == '0' && (text[pos + 1] == 'x' || text[pos + 1] == 'X'))
        pos += 2;
    if (pos == end) {
        HexParse r;
        r.error = pos == begin ? HexError::empty : HexError::no_digits_after_prefix;
        return r;
    }

    HexParse r;
    std::size_t significant = 0;
    for (; pos < end; ++pos) {
        int digit = hex_value(text[pos]);
        if (digit < 0) {
            r.error = HexError::bad_character;
            r.detail = pos;
            return r;
        }
        if (significant == 0 && digit == 0) continue;
        ++significant;
        if (significant <= 16) r.value = (r.value << 4) | static_cast<uint64_t>(digit);
    }
    if (significant > 16) {
        r.error = HexError::too_many_digits;
        r.value = 0;
        r.detail = significant;
    }
    return r;
}

void format_hex(uint64_t value, char out[16]) noexcept
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i) {
        out[i] = digits[value & 0xF];
        value >>= 4;
    }
}

}  // namespace simhash
