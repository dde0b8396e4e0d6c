#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "hamming.h"
#include "mih_blocks.h"

TEST(MihBlocks, BlocksTileAll64Bits)
{
    for (int m = SH_MIH_MIN_BLOCKS; m <= SH_MIH_MAX_BLOCKS; ++m) {
        int covered = 0;
        for (int b = 0; b < m; ++b) {
            EXPECT_EQ(sh_mih_block_start(m, b), covered);
            EXPECT_LE(sh_mih_block_len(m, b), 22);
            covered += sh_mih_block_len(m, b);
        }
        EXPECT_EQ(covered, 64) << "m=" << m;
        uint64_t h = 0x0123456789abcdefULL, rebuilt = 0;
        for (int b = 0; b < m; ++b)
            rebuilt |= uint64_t(sh_mih_block_value(h, m, b)) << sh_mih_block_start(m, b);
        EXPECT_EQ(rebuilt, h);
    }
}

TEST(MihBlocks, NeighbourKeysAreExactlyTheValuesWithinR)
{
    const int len = 9;
    for (int r = 0; r <= 3; ++r) {
        std::vector<int32_t> keys(size_t(sh_mih_neighbourhood_size(len, r)));
        int n = sh_mih_neighbour_keys(2, len, 0x155, r, 0, keys.data(), 0);
        ASSERT_EQ(size_t(n), keys.size());
        std::set<int32_t> unique(keys.begin(), keys.end());
        EXPECT_EQ(unique.size(), keys.size()) << "duplicates at r=" << r;
        for (uint32_t v = 0; v < (1u << len); ++v)
            EXPECT_EQ(unique.count(sh_mih_key(2, v)) == 1, sh_popcount64(v ^ 0x155u) <= r);
    }
}

// The pigeonhole guarantee the index relies on: hashes within k share a key of the query's
// neighbour set on some block.
TEST(MihBlocks, PairsWithinKAlwaysMeetOnSomeBlock)
{
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 3000; ++trial) {
        int m = SH_MIH_MIN_BLOCKS + trial % (SH_MIH_MAX_BLOCKS - SH_MIH_MIN_BLOCKS + 1);
        int k = trial % 12;
        uint64_t q = rng(), x = q;
        for (int f = 0; f < k; ++f) x ^= 1ULL << (rng() % 64);  // distance <= k
        bool met = false;
        for (int b = 0; b < m && !met; ++b)
            met = sh_popcount64(sh_mih_block_value(q, m, b) ^ sh_mih_block_value(x, m, b)) <= k / m;
        ASSERT_TRUE(met) << "m=" << m << " k=" << k;
    }
}
