// The default simhash of a page: 64 one-bit min-hashes of its feature set.
//
// Why not Charikar's sum: for a set-valued page, the bits of a Charikar simhash differ with
// probability theta/pi, theta the angle between the two feature sets, which near identity grows
// like the square root of (1 - J): two pages with Jaccard resemblance J = 0.9 are 6.6 bits apart
// on average, beyond the project's duplicate threshold of 5, while J = 0.5 is only 17 bits away.
// A one-bit min-hash differs with probability (1 - J) / 2, linear in (1 - J), which separates
// near-duplicates from merely similar pages far more sharply at the same 64 bits.
//
// The sketch (README, "Computing simhash", gives the same definition):
//   lane i, for i = 0..95, is the minimum over the page's features f of
//       fmix32(fold(f) XOR seed[i])
//   where fold(f) = (low 32 bits of f) XOR (high 32 bits of f), fmix32 is MurmurHash3's 32-bit
//   finalizer and seed[i] the low 32 bits of the (i+1)-th output of SplitMix64 started from
//   state 2^32. A page without features has every lane 2^32 - 1.
//   Bit j (j = 0..31) of the result is the parity of lane j; bit 32 + j is the parity of
//   lane 32 + 2j XOR lane 33 + 2j.
// Two pages agree on a lane with probability J, so a bit of the first half differs with
// probability (1 - J) / 2 and one of the second half, which needs two lanes to agree, with
// (1 - J^2) / 2: the expected distance is 16 (1 - J) + 16 (1 - J^2) bits, which is 2.4 at
// J = 0.95, 4.6 at 0.9, 9.0 at 0.8 and 20 at 0.5. The pairs of lanes steepen that curve where it
// matters for the threshold of 5: one-bit min-hashes alone would put J = 0.8 only 6.4 bits away.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simhash {

constexpr int kSketchLanes = 96;

uint32_t sketch_seed(int lane) noexcept;

class MinHashSketch {
public:
    MinHashSketch() noexcept;
    // Repeated features are harmless: a minimum ignores them.
    void add(const uint64_t *features, std::size_t n) noexcept;
    uint64_t bits() const noexcept;
    uint32_t lane(int i) const noexcept { return lanes_[i]; }

private:
    alignas(32) uint32_t lanes_[kSketchLanes];
};

// The versions of the lane loop that add() chooses from, named so that tests can run each one the
// CPU supports and compare it with the definition.
namespace lane_loops {
using Function = void (*)(uint32_t *lanes, const uint64_t *features, std::size_t n);
void avx512(uint32_t *lanes, const uint64_t *features, std::size_t n) noexcept;
void avx2(uint32_t *lanes, const uint64_t *features, std::size_t n) noexcept;
void portable(uint32_t *lanes, const uint64_t *features, std::size_t n) noexcept;
}  // namespace lane_loops

}  // namespace simhash
