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

// Sorting rotated values sorts by the block first: the rotation puts block b on the top bits and
// loses nothing (sh_mih_rotate_block_back undoes it), for the 2..4 blocks of the simhash_mih
// access method too.
TEST(MihBlocks, RotationPutsTheBlockOnTop)
{
    std::mt19937_64 rng(9);
    for (int m = 2; m <= SH_MIH_MAX_BLOCKS; ++m)
        for (int b = 0; b < m; ++b)
            for (int i = 0; i < 200; ++i) {
                uint64_t h = rng();
                uint64_t r = sh_mih_rotate_block_to_top(h, m, b);
                int len = sh_mih_block_len(m, b);
                EXPECT_EQ(r >> (64 - len), sh_mih_block_value(h, m, b)) << "m=" << m << " b=" << b;
                EXPECT_EQ(sh_popcount64(r), sh_popcount64(h));
                EXPECT_EQ(sh_mih_rotate_block_back(r, m, b), h) << "m=" << m << " b=" << b;
                uint64_t other = rng();
                if (sh_mih_block_value(h, m, b) < sh_mih_block_value(other, m, b)) {
                    EXPECT_LT(r, sh_mih_rotate_block_to_top(other, m, b));
                }
            }
}

// The cost model picks 3 tables within the size budget for realistic row counts, and the only
// candidate when the range has one.
TEST(MihBlocks, TableCountFromRowCount)
{
    for (double n : {1e3, 1e5, 1e6, 1e7, 1e8})
        EXPECT_EQ(sh_mih_tables_for_rows(n, 2, 3), 3) << n;
    EXPECT_EQ(sh_mih_tables_for_rows(1e6, 2, 2), 2);
    // Four tables probe one value per table at k = 3 and win the model when allowed.
    EXPECT_EQ(sh_mih_tables_for_rows(1e6, 2, 4), 4);
}

// The generalized pigeonhole the radius levels rely on: hashes within k agree within levels[j]
// bits on some block j, for every block count and radius (the worst case: the k flipped bits
// spread so that each block gets as many as it can without being found).
TEST(MihBlocks, RadiusLevelsFindEveryHashWithinK)
{
    std::mt19937_64 rng(11);
    for (int m = 2; m <= SH_MIH_MAX_BLOCKS; ++m)
        for (int k = 0; k < 64; ++k) {
            int levels[SH_MIH_MAX_BLOCKS];
            sh_mih_radius_levels(m, k, 400.0, 1e6, levels);
            int sum = 0;
            for (int j = 0; j < m; ++j) {
                ASSERT_GE(levels[j], -1);
                ASSERT_LE(levels[j], sh_mih_block_len(m, j));
                sum += levels[j] + 1;
            }
            ASSERT_GT(sum, k) << "m=" << m << " k=" << k;
            // Hashes that dodge every block's level as long as the bits allow: none may be
            // within k unless found.
            for (int trial = 0; trial < 20; ++trial) {
                uint64_t q = rng(), x = q;
                int flipped = 0;
                for (int j = 0; j < m && flipped < k; ++j) {
                    int want = std::min(levels[j] + 1, sh_mih_block_len(m, j));
                    for (int i = 0; i < want && flipped < k; ++i, ++flipped)
                        x ^= 1ULL << (sh_mih_block_start(m, j) + i);
                }
                bool met = false;
                for (int j = 0; j < m && !met; ++j)
                    met = sh_popcount64(sh_mih_block_value(q, m, j) ^ sh_mih_block_value(x, m, j)) <= levels[j];
                ASSERT_TRUE(met) << "m=" << m << " k=" << k;
            }
        }
}

// The levels are the cheapest: against every combination of levels for small cases, and never
// dearer than the classic floor(k/m) on every block.
TEST(MihBlocks, RadiusLevelsAreTheCheapest)
{
    for (int m = 2; m <= 4; ++m)
        for (int k = 0; k <= 10; ++k)
            for (double n : {0.0, 1e6, 1e8}) {
                int levels[SH_MIH_MAX_BLOCKS];
                double cost = sh_mih_radius_levels(m, k, 400.0, n, levels);
                double classic = 0;
                for (int j = 0; j < m; ++j)
                    classic += sh_mih_level_cost(sh_mih_block_len(m, j), k / m, 400.0, n);
                EXPECT_LE(cost, classic);
                double chosen = 0;
                for (int j = 0; j < m; ++j)
                    chosen += sh_mih_level_cost(sh_mih_block_len(m, j), levels[j], 400.0, n);
                EXPECT_DOUBLE_EQ(chosen, cost);
                double cheapest = HUGE_VAL;
                std::vector<int> t(size_t(m), -1);
                for (;;) {
                    int sum = 0;
                    double c = 0;
                    for (int j = 0; j < m; ++j) {
                        sum += t[size_t(j)] + 1;
                        c += sh_mih_level_cost(sh_mih_block_len(m, j), t[size_t(j)], 400.0, n);
                    }
                    if (sum > k) cheapest = std::min(cheapest, c);
                    int j = 0;
                    while (j < m && ++t[size_t(j)] > k) t[size_t(j++)] = -1;
                    if (j == m) break;
                }
                EXPECT_DOUBLE_EQ(cost, cheapest) << "m=" << m << " k=" << k << " n=" << n;
            }
    // Radius 3 on the default three tables: one table at level 1, two at level 0.
    int levels[SH_MIH_MAX_BLOCKS];
    EXPECT_DOUBLE_EQ(sh_mih_radius_levels(3, 3, 1.0, 0.0, levels), 24.0);
    EXPECT_EQ(levels[0] + levels[1] + levels[2], 1);
}
