// The codec cannot throw (no allocation), so these bodies need no exception guard.
#include "hex_bridge.h"

#include "hex_codec.hpp"

extern "C" sh_hex_status sh_parse_hex(const char *text, size_t len, uint64_t *value,
                                      size_t *detail) noexcept
{
    const simhash::HexParse r = simhash::parse_hex(std::string_view(text, len));
    *value = r.value;
    *detail = r.detail;
    switch (r.error) {
    case simhash::HexError::none: return SH_HEX_OK;
    case simhash::HexError::empty: return SH_HEX_EMPTY;
    case simhash::HexError::no_digits_after_prefix: return SH_HEX_NO_DIGITS_AFTER_PREFIX;
    case simhash::HexError::too_many_digits: return SH_HEX_TOO_MANY_DIGITS;
    case simhash::HexError::bad_character: return SH_HEX_BAD_CHARACTER;
    }
    return SH_HEX_BAD_CHARACTER;
}

extern "C" void sh_format_hex(uint64_t value, char *out) noexcept
{
    simhash::format_hex(value, out);
    out[16] = '\0';
}
