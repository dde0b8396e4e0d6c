// The legacy "fingerprints": 128 min-hashes of a page's features (doc/fingerprints.md).
//
// Entry i is the minimum, over the page's features f, of permute(f, i) = fmix64(f XOR seed[i]),
// where fmix64 is MurmurHash3's 64-bit finalizer and seed[i] the (i+1)-th output of SplitMix64
// started from state 0. Both steps are bijections of 64-bit values, so each entry is the min-hash
// of one pseudo-random permutation: two pages agree on entry i with probability equal to the
// Jaccard resemblance of their feature sets. A page without features has every entry 2^64-1.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simhash {

constexpr int kMinHashes = 128;

uint64_t min_hash_seed(int i) noexcept;
uint64_t min_hash_permute(uint64_t feature, int i) noexcept;

// Repeated features are harmless: a minimum ignores them.
void min_hashes(const uint64_t *features, std::size_t n, uint64_t out[kMinHashes]) noexcept;
// Lowers entries (start from min_hashes of no features) by more features: the pieces of a page.
void add_min_hashes(const uint64_t *features, std::size_t n, uint64_t entries[kMinHashes]) noexcept;

}  // namespace simhash
