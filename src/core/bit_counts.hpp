// For each of the 64 bit positions, how many of the added values have that bit set: Charikar's
// combination step when every weight is 1, in integers. Bit i of the simhash is then 1 exactly
// when 2 * ones(i) > added (the sum of +1 and -1 is > 0), the same result the double sums of
// charikar.h give, since sums of +-1 are exact in a double far beyond any page's feature count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace simhash {

namespace bit_counts_detail {
// Byte j of make_spread()[x] is bit j of x.
constexpr std::array<uint64_t, 256> make_spread()
{
    std::array<uint64_t, 256> t{};
    for (unsigned x = 0; x < 256; ++x)
        for (unsigned j = 0; j < 8; ++j)
            if ((x >> j) & 1) t[x] |= uint64_t(1) << (8 * j);
    return t;
}
}  // namespace bit_counts_detail

class BitCounts {
public:
    void add(uint64_t v)
    {
        // Eight byte-wide counters per 64-bit lane: byte j of lanes_[b] counts bit 8b + j.
        for (int b = 0; b < 8; ++b) lanes_[b] += kSpread[(v >> (8 * b)) & 0xFF];
        if (++pending_ == kMaxPending) flush();
    }

    // The simhash of the values added so far (0 when none).
    uint64_t simhash()
    {
        flush();
        uint64_t h = 0;
        for (int i = 0; i < 64; ++i)
            if (2 * counts_[i] > added_) h |= UINT64_C(1) << i;
        return h;
    }

private:
    static constexpr unsigned kMaxPending = 255;  // a byte counter holds at most 255

    static constexpr std::array<uint64_t, 256> kSpread = bit_counts_detail::make_spread();

    void flush()
    {
        for (int b = 0; b < 8; ++b) {
            for (int j = 0; j < 8; ++j) counts_[8 * b + j] += (lanes_[b] >> (8 * j)) & 0xFF;
            lanes_[b] = 0;
        }
        added_ += pending_;
        pending_ = 0;
    }

    uint64_t lanes_[8] = {};
    unsigned pending_ = 0;
    uint64_t counts_[64] = {};
    uint64_t added_ = 0;
};

}  // namespace simhash
