/* C view of the core's simhash text codec (see src/core/hex_codec.hpp). */
#ifndef SIMHASH_HEX_BRIDGE_H
#define SIMHASH_HEX_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "bridge_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
	SH_HEX_OK = 0,
	SH_HEX_EMPTY,
	SH_HEX_NO_DIGITS_AFTER_PREFIX,
	SH_HEX_TOO_MANY_DIGITS,
	SH_HEX_BAD_CHARACTER
} sh_hex_status;

/* On error *detail is the offending byte offset (bad character) or the digit count (too many). */
sh_hex_status sh_parse_hex(const char *text, size_t len, uint64_t *value, size_t *detail) SH_NOEXCEPT;

/* Writes 16 lowercase hex digits and a terminating NUL into out[17]. */
void sh_format_hex(uint64_t value, char *out) SH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
