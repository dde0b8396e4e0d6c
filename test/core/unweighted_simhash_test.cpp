#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "bit_counts.hpp"
#include "charikar.h"
#include "distinct_features.hpp"

using namespace simhash;

namespace {

uint64_t charikar_of(const std::vector<uint64_t> &values)
{
    sh_charikar acc;
    sh_charikar_init(&acc);
    for (uint64_t v : values) sh_charikar_add(&acc, v, 1.0);
    return sh_charikar_result(&acc);
}

std::vector<uint64_t> sorted(std::vector<uint64_t> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

}  // namespace

TEST(UnweightedSimhash, EqualsTheDoubleSumsForAnyCount)
{
    std::mt19937_64 rng(42);
    // Counts around the 255-value blocks of the byte counters, and biased bits so that ties and
    // near-ties happen.
    for (std::size_t n : {0, 1, 2, 254, 255, 256, 510, 511, 1000, 5000}) {
        std::vector<uint64_t> values(n);
        for (auto &v : values) v = rng() & rng();
        EXPECT_EQ(unweighted_simhash(values.data(), n), charikar_of(values)) << n;
        for (auto &v : values) v = rng() | rng();
        EXPECT_EQ(unweighted_simhash(values.data(), n), charikar_of(values)) << n;
    }
    const std::vector<uint64_t> tie = {0x0F, 0xF0};
    EXPECT_EQ(unweighted_simhash(tie.data(), tie.size()), 0u);
    const std::vector<uint64_t> all = std::vector<uint64_t>(300, UINT64_MAX);
    EXPECT_EQ(unweighted_simhash(all.data(), all.size()), UINT64_MAX);
}

TEST(DistinctFeatures, KeepsEachValueOnce)
{
    std::mt19937_64 rng(7);
    for (std::size_t n : {0, 1, 2, 100, 10000}) {
        std::vector<uint64_t> values;
        for (std::size_t i = 0; i < n; ++i) values.push_back(rng() % (n / 2 + 1));  // repeats and 0
        const std::set<uint64_t> expected(values.begin(), values.end());
        keep_distinct(values);
        EXPECT_EQ(sorted(values), std::vector<uint64_t>(expected.begin(), expected.end())) << n;
    }
}

TEST(DistinctFeatures, ValuesCollidingInTheLowBitsFallBackToSorting)
{
    std::vector<uint64_t> values;
    for (uint64_t k = 1; k <= 200; ++k) values.push_back((k << 40) | 5);  // one slot for all
    for (uint64_t k = 1; k <= 200; k += 3) values.push_back((k << 40) | 5);
    values.push_back(0);
    values.push_back(0);
    const std::set<uint64_t> expected(values.begin(), values.end());
    keep_distinct(values);
    EXPECT_EQ(sorted(values), std::vector<uint64_t>(expected.begin(), expected.end()));
}
