// The loop cannot throw (no allocation), so this body needs no exception guard.
#include "scan_bridge.h"

#include "hamming_within.hpp"

extern "C" int sh_next_within(const uint64_t *hashes, int from, int n, uint64_t center, int least,
                              int most) noexcept
{
    return simhash::next_within(hashes, from, n, center, least, most);
}
