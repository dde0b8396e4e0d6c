// The resemblance sketch: 512 one-bit min-hashes of a page's feature set in 64 bytes, the second,
// confirming stage behind simhash (doc/accuracy.md, "Confirmed duplicates").
//
// Why this shape: a candidate pair found within k bits needs an estimate of its shingle
// resemblance J precise enough to tell J = 0.8 from 0.9. For a fixed size, one-bit min-hashes give
// the most samples: at 64 bytes, 512 of them estimate J with a standard deviation of 0.026 at
// J = 0.8 and 0.019 at 0.9, against 0.035 and 0.027 for the legacy fingerprints' 128 full 64-bit
// min-hashes in 1,024 bytes (b-bit min-hashing, Li and König: a one-bit sample agrees with
// probability (1 + J) / 2, so J = 2 * agreements / 512 - 1, with variance 4 p (1 - p) / 512).
//
// The definition (README, "Confirmed duplicates", gives the same):
//   every feature f is permuted once: h = fmix64(f XOR kBinSeed) (MurmurHash3's 64-bit finalizer);
//   its top 9 bits choose one of 512 bins, its low 55 bits are its rank there (one-permutation
//   hashing, Li, Owen and Zhang); each bin keeps the smallest rank of the page's features.
//   An empty bin i borrows the rank of bin j for the first t = 1, 2, ... whose
//   j = top 9 bits of splitmix64_nth(kDensifySeed, i * 65536 + t) is not empty (optimal
//   densification, Shrivastava 2017; after 65,535 tries, the next non-empty bin after i), so two
//   pages agree on a bin with probability J whether or not it was empty.
//   Bit i of the sketch (byte i / 8, bit i % 8) is the lowest bit of fmix64(rank_i XOR i * golden),
//   a fresh bit per bin so that a rank copied into several bins does not repeat its bit.
//   A page without features has every bit 0.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simhash {

constexpr int kResemblanceBins = 512;
constexpr int kResemblanceBytes = kResemblanceBins / 8;

class ResemblanceBins {
public:
    ResemblanceBins() noexcept;
    // Repeated features are harmless: a minimum ignores them.
    void add(const uint64_t *features, std::size_t n) noexcept;
    // Densifies and writes the 64-byte sketch.
    void sketch(uint8_t out[kResemblanceBytes]) const noexcept;

private:
    uint64_t ranks_[kResemblanceBins];
};

// Agreeing bits of two sketches, 0..512.
int resemblance_agreements(const uint8_t a[kResemblanceBytes], const uint8_t b[kResemblanceBytes]) noexcept;
// The estimate of J: max(0, 2 * agreements / 512 - 1), a multiple of 1/256 in 0..1 (exact in a
// double, so a comparison with a threshold means the same in the core and in SQL).
double resemblance_estimate(const uint8_t a[kResemblanceBytes], const uint8_t b[kResemblanceBytes]) noexcept;

}  // namespace simhash
