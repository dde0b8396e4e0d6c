#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "hamming.h"
#include "hamming_within.hpp"

using namespace simhash;

namespace {

// The definition, written out: the first i in [from, n) within [least, most] of the center.
int first_within(const std::vector<uint64_t> &h, int from, int n, uint64_t c, int least, int most)
{
    for (int i = from; i < n; ++i) {
        const int d = sh_hamming(h[i], c);
        if (least <= d && d <= most) return i;
    }
    return n;
}

std::vector<std::pair<const char *, within_loops::Function>> loops()
{
    std::vector<std::pair<const char *, within_loops::Function>> all = {{"portable", within_loops::portable},
                                                                        {"widest", next_within}};
    if (within_loops::Function wide = within_loops::avx512()) all.emplace_back("avx512", wide);
    return all;
}

}  // namespace

// Hashes at every distance from the center, in runs shorter and longer than eight, so that each
// start, each length of a last partial step and each range is tried.
TEST(HammingWithin, EveryVersionFindsWhatTheDefinitionFinds)
{
    std::mt19937_64 rng(7);
    const uint64_t c = rng();
    std::vector<uint64_t> h(75);
    for (auto &x : h) {
        uint64_t flip = 0;
        for (int b = int(rng() % 12); b > 0; --b) flip |= uint64_t(1) << (rng() % 64);
        x = rng() % 3 == 0 ? c ^ flip : rng();
    }
    const std::pair<int, int> ranges[] = {{0, 0}, {0, 3}, {2, 5}, {5, 5}, {0, 64}, {30, 40}, {64, 64}, {6, 5}};
    for (const auto &[name, loop] : loops())
        for (int n = 0; n <= int(h.size()); ++n)
            for (int from = 0; from <= n + 1; ++from)
                for (const auto &[least, most] : ranges)
                    ASSERT_EQ(loop(h.data(), from, n, c, least, most), first_within(h, from, n, c, least, most))
                        << name << " n=" << n << " from=" << from << " range " << least << ".." << most;
}

// A hash at the center is found at every position of an eight-hash step, and nothing past n.
TEST(HammingWithin, FindsEachPositionAndStopsAtN)
{
    const uint64_t c = 0x0123456789abcdefULL;
    for (const auto &[name, loop] : loops())
        for (int at = 0; at < 24; ++at) {
            std::vector<uint64_t> h(24, ~c);
            h[at] = c;
            EXPECT_EQ(loop(h.data(), 0, 24, c, 0, 0), at) << name;
            EXPECT_EQ(loop(h.data(), 0, at, c, 0, 0), at) << name << ": the hash at n is not read";
            EXPECT_EQ(loop(h.data(), at + 1, 24, c, 0, 0), 24) << name;
        }
}
