#include "min_hashes.hpp"

#include <array>

namespace simhash {

namespace {

constexpr uint64_t splitmix64_output(uint64_t state)
{
    uint64_t z = state;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

constexpr std::array<uint64_t, kMinHashes> make_seeds()
{
    std::array<uint64_t, kMinHashes> seeds{};
    uint64_t state = 0;
    for (int i = 0; i < kMinHashes; ++i) {
        state += UINT64_C(0x9e3779b97f4a7c15);
        seeds[i] = splitmix64_output(state);
    }
    return seeds;
}

constexpr std::array<uint64_t, kMinHashes> kSeeds = make_seeds();

inline uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return k;
}

}  // namespace

uint64_t min_hash_seed(int i) noexcept { return kSeeds[i]; }

uint64_t min_hash_permute(uint64_t feature, int i) noexcept { return fmix64(feature ^ kSeeds[i]); }

void min_hashes(const uint64_t *features, std::size_t n, uint64_t out[kMinHashes]) noexcept
{
    // Entry-major: each entry's minimum stays in a register while the features stream by.
    for (int i = 0; i < kMinHashes; ++i) {
        const uint64_t seed = kSeeds[i];
        uint64_t m = UINT64_MAX;
        for (std::size_t j = 0; j < n; ++j) {
            const uint64_t v = fmix64(features[j] ^ seed);
            m = v < m ? v : m;
        }
        out[i] = m;
    }
}

}  // namespace simhash
