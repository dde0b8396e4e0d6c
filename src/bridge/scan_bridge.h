/* C view of the core's linear read of hashes (see src/core/hamming_within.hpp). */
#ifndef SIMHASH_SCAN_BRIDGE_H
#define SIMHASH_SCAN_BRIDGE_H

#include <stdint.h>

#include "bridge_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The first i in [from, n) with least <= popcount(hashes[i] ^ center) <= most, or n (also when
 * most < least or from >= n).
 */
int			sh_next_within(const uint64_t *hashes, int from, int n, uint64_t center, int least, int most) SH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
