// The hot loop of every linear read of hashes (a simhash_mih index's pending rows, and table 0 of
// a run when a scan reads it whole): the next hash within a range of Hamming distances of a center.
// Nearly every hash is outside the range, so the loop is the distance and one comparison. With
// AVX-512's 64-bit popcount (VPOPCNTQ) it tests eight hashes at once, several times as fast as one
// POPCNT a hash; next_within takes the widest version the CPU has.
#pragma once

#include <cstdint>

namespace simhash {

// The first i in [from, n) with least <= popcount(hashes[i] ^ center) <= most, or n (also when
// most < least or from >= n).
int next_within(const uint64_t *hashes, int from, int n, uint64_t center, int least, int most) noexcept;

// The versions next_within chooses from, named so that tests can run each one the CPU supports and
// compare it with the definition.
namespace within_loops {
using Function = int (*)(const uint64_t *hashes, int from, int n, uint64_t center, int least, int most);
int portable(const uint64_t *hashes, int from, int n, uint64_t center, int least, int most) noexcept;
// nullptr where the CPU has no AVX-512 VPOPCNTQ (or is not x86-64)
Function avx512() noexcept;
}  // namespace within_loops

}  // namespace simhash
