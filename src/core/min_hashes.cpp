#include "min_hashes.hpp"

#include <array>

#include "fmix64.hpp"
#include "splitmix64.h"

namespace simhash {

namespace {

constexpr std::array<uint64_t, kMinHashes> make_seeds()
{
    std::array<uint64_t, kMinHashes> seeds{};
    for (int i = 0; i < kMinHashes; ++i) seeds[i] = sh_splitmix64_nth(0, i);
    return seeds;
}

constexpr std::array<uint64_t, kMinHashes> kSeeds = make_seeds();

}  // namespace

uint64_t min_hash_seed(int i) noexcept { return kSeeds[i]; }

uint64_t min_hash_permute(uint64_t feature, int i) noexcept { return fmix64(feature ^ kSeeds[i]); }

void add_min_hashes(const uint64_t *features, std::size_t n, uint64_t entries[kMinHashes]) noexcept
{
    // Entry-major: each entry's minimum stays in a register while the features stream by.
    for (int i = 0; i < kMinHashes; ++i) {
        const uint64_t seed = kSeeds[i];
        uint64_t m = entries[i];
        for (std::size_t j = 0; j < n; ++j) {
            const uint64_t v = fmix64(features[j] ^ seed);
            m = v < m ? v : m;
        }
        entries[i] = m;
    }
}

void min_hashes(const uint64_t *features, std::size_t n, uint64_t out[kMinHashes]) noexcept
{
    for (int i = 0; i < kMinHashes; ++i) out[i] = UINT64_MAX;
    add_min_hashes(features, n, out);
}

}  // namespace simhash
