// Text form of a simhash: 16 lowercase hex digits out; 1..16 significant hex digits in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace simhash {

enum class HexError { none, empty, no_digits_after_prefix, too_many_digits, bad_character };

struct HexParse {
    HexError error = HexError::none;
    uint64_t value = 0;
    // For bad_character: byte offset of the offending character in the input;
    // for too_many_digits: the number of significant digits seen.
    std::size_t detail = 0;
};

// Accepts surrounding ASCII white space, an optional 0x/0X prefix and hex digits of either case.
// Leading zeros do not count against the 16-digit limit.
HexParse parse_hex(std::string_view text) noexcept;

// Writes exactly 16 lowercase hex digits (no terminator).
void format_hex(uint64_t value, char out[16]) noexcept;

}  // namespace simhash
