#include "bit_counts.hpp"

#include <array>

namespace simhash {
namespace {

// Byte j of kSpread[x] is bit j of x.
constexpr std::array<uint64_t, 256> make_spread()
{
    std::array<uint64_t, 256> t{};
    for (unsigned x = 0; x < 256; ++x)
        for (unsigned j = 0; j < 8; ++j)
            if ((x >> j) & 1) t[x] |= uint64_t(1) << (8 * j);
    return t;
}

constexpr std::array<uint64_t, 256> kSpread = make_spread();

}  // namespace

uint64_t unweighted_simhash(const uint64_t *values, std::size_t n) noexcept
{
    uint64_t ones[64] = {};
    for (std::size_t start = 0; start < n;) {
        // Eight byte-wide counters per lane (byte j of lane b counts bit 8b + j), emptied before
        // any can pass 255.
        const std::size_t end = n - start > 255 ? start + 255 : n;
        uint64_t l0 = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, l5 = 0, l6 = 0, l7 = 0;
        for (std::size_t i = start; i < end; ++i) {
            const uint64_t v = values[i];
            l0 += kSpread[v & 0xFF];
            l1 += kSpread[(v >> 8) & 0xFF];
            l2 += kSpread[(v >> 16) & 0xFF];
            l3 += kSpread[(v >> 24) & 0xFF];
            l4 += kSpread[(v >> 32) & 0xFF];
            l5 += kSpread[(v >> 40) & 0xFF];
            l6 += kSpread[(v >> 48) & 0xFF];
            l7 += kSpread[v >> 56];
        }
        const uint64_t lanes[8] = {l0, l1, l2, l3, l4, l5, l6, l7};
        for (int b = 0; b < 8; ++b)
            for (int j = 0; j < 8; ++j) ones[8 * b + j] += (lanes[b] >> (8 * j)) & 0xFF;
        start = end;
    }
    uint64_t h = 0;
    for (int i = 0; i < 64; ++i)
        if (2 * ones[i] > n) h |= UINT64_C(1) << i;
    return h;
}

}  // namespace simhash
