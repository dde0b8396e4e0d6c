#include "minhash_sketch.hpp"

#include <array>

#include "splitmix64.h"

namespace simhash {

namespace {

constexpr uint64_t kSeedState = UINT64_C(1) << 32;

constexpr std::array<uint32_t, kSketchLanes> make_seeds()
{
    std::array<uint32_t, kSketchLanes> seeds{};
    for (int i = 0; i < kSketchLanes; ++i) seeds[i] = uint32_t(sh_splitmix64_nth(kSeedState, i));
    return seeds;
}

alignas(32) constexpr std::array<uint32_t, kSketchLanes> kSeeds = make_seeds();

inline __attribute__((always_inline)) uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return h;
}

// The lane loop over a batch of features. 32-bit lanes so that 8 fit an AVX2 register and 16 an
// AVX-512 one: the loop is vectorized, once per instruction set (lane_loops), and add() runs the
// widest the CPU has. Every version computes the same values.
inline __attribute__((always_inline)) void add_to_lanes(uint32_t *lanes, const uint64_t *features,
                                                        std::size_t n)
{
    for (std::size_t j = 0; j < n; ++j) {
        const uint32_t x = uint32_t(features[j]) ^ uint32_t(features[j] >> 32);
        for (int i = 0; i < kSketchLanes; ++i) {
            const uint32_t v = fmix32(x ^ kSeeds[i]);
            lanes[i] = v < lanes[i] ? v : lanes[i];
        }
    }
}

}  // namespace

__attribute__((target("avx512f"))) void lane_loops::avx512(uint32_t *lanes, const uint64_t *f,
                                                           std::size_t n) noexcept
{
    add_to_lanes(lanes, f, n);
}

__attribute__((target("avx2"))) void lane_loops::avx2(uint32_t *lanes, const uint64_t *f, std::size_t n) noexcept
{
    add_to_lanes(lanes, f, n);
}

void lane_loops::portable(uint32_t *lanes, const uint64_t *f, std::size_t n) noexcept { add_to_lanes(lanes, f, n); }

namespace {

lane_loops::Function widest_lane_loop()
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return lane_loops::avx512;
    if (__builtin_cpu_supports("avx2")) return lane_loops::avx2;
    return lane_loops::portable;
}

}  // namespace

uint32_t sketch_seed(int lane) noexcept { return kSeeds[lane]; }

MinHashSketch::MinHashSketch() noexcept
{
    for (uint32_t &v : lanes_) v = UINT32_MAX;
}

void MinHashSketch::add(const uint64_t *features, std::size_t n) noexcept
{
    static const lane_loops::Function lane_loop = widest_lane_loop();
    lane_loop(lanes_, features, n);
}

uint64_t MinHashSketch::bits() const noexcept
{
    uint64_t out = 0;
    for (int j = 0; j < 32; ++j) {
        out |= uint64_t(__builtin_parity(lanes_[j])) << j;
        out |= uint64_t(__builtin_parity(lanes_[32 + 2 * j] ^ lanes_[33 + 2 * j])) << (32 + j);
    }
    return out;
}

}  // namespace simhash
