#include "resemblance_sketch.hpp"

#include <algorithm>
#include <cstring>

#include "fmix64.hpp"
#include "splitmix64.h"

namespace simhash {
namespace {

constexpr uint64_t kBinSeed = UINT64_C(0x5f3759df2b1e4a7d);
constexpr uint64_t kDensifySeed = UINT64_C(0x243f6a8885a308d3);
constexpr uint64_t kGolden = UINT64_C(0x9e3779b97f4a7c15);
constexpr int kRankBits = 55;
constexpr uint64_t kRankMask = (UINT64_C(1) << kRankBits) - 1;
constexpr uint64_t kEmpty = UINT64_MAX;  // above every rank
constexpr int kTries = 65535;

}  // namespace

ResemblanceBins::ResemblanceBins() noexcept { std::fill(ranks_, ranks_ + kResemblanceBins, kEmpty); }

void ResemblanceBins::add(const uint64_t *features, std::size_t n) noexcept
{
    for (std::size_t i = 0; i < n; ++i) {
        const uint64_t h = fmix64(features[i] ^ kBinSeed);
        uint64_t &bin = ranks_[h >> kRankBits];
        bin = std::min(bin, h & kRankMask);
    }
}

void ResemblanceBins::sketch(uint8_t out[kResemblanceBytes]) const noexcept
{
    std::memset(out, 0, kResemblanceBytes);
    const bool any = std::any_of(ranks_, ranks_ + kResemblanceBins, [](uint64_t r) { return r != kEmpty; });
    if (!any) return;
    for (int i = 0; i < kResemblanceBins; ++i) {
        uint64_t rank = ranks_[i];
        for (int t = 1; rank == kEmpty && t <= kTries; ++t)
            rank = ranks_[sh_splitmix64_nth(kDensifySeed, i * 65536 + t) >> kRankBits];
        // Reached only if 65,535 draws missed every non-empty bin (chance below e^-127): any
        // deterministic rule keeps both pages comparable.
        for (int j = (i + 1) % kResemblanceBins; rank == kEmpty; j = (j + 1) % kResemblanceBins) rank = ranks_[j];
        const uint64_t bit = fmix64(rank ^ (uint64_t(i) * kGolden)) & 1;
        out[i / 8] = uint8_t(out[i / 8] | (bit << (i % 8)));
    }
}

int resemblance_agreements(const uint8_t a[kResemblanceBytes], const uint8_t b[kResemblanceBytes]) noexcept
{
    int differ = 0;
    for (int i = 0; i < kResemblanceBytes; i += 8) {
        uint64_t x, y;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        differ += __builtin_popcountll(x ^ y);
    }
    return kResemblanceBins - differ;
}

double resemblance_estimate(const uint8_t a[kResemblanceBytes], const uint8_t b[kResemblanceBytes]) noexcept
{
    const int agree = resemblance_agreements(a, b);
    return agree <= kResemblanceBins / 2 ? 0.0 : double(agree - kResemblanceBins / 2) / (kResemblanceBins / 2);
}

}  // namespace simhash
