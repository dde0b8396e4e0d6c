#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "all_pairs.hpp"
#include "core_errors.hpp"
#include "hamming.h"

using namespace simhash;

namespace {

struct Data {
    std::vector<int64_t> ids;
    std::vector<uint64_t> hashes;
};

// 70% random hashes, 30% in clusters of bit-flipped copies of a base (like the reference workload).
Data clustered(std::size_t n, unsigned seed)
{
    std::mt19937_64 rng(seed);
    Data d;
    while (d.ids.size() < n) {
        if (rng() % 10 < 7) {
            d.hashes.push_back(rng());
        } else {
            const uint64_t base = rng();
            const std::size_t members = 2 + rng() % 6;
            for (std::size_t m = 0; m < members && d.ids.size() + d.hashes.size() - d.ids.size() < n; ++m) {
                uint64_t h = base;
                for (int f = int(rng() % 9); f > 0; --f) h ^= 1ULL << (rng() % 64);
                d.hashes.push_back(h);
            }
        }
        while (d.ids.size() < d.hashes.size()) d.ids.push_back(int64_t(d.ids.size() * 7 + 3));
    }
    d.ids.resize(n);
    d.hashes.resize(n);
    return d;
}

std::vector<std::tuple<int64_t, int64_t, int>> brute(const Data &d, int k)
{
    std::vector<std::tuple<int64_t, int64_t, int>> out;
    for (std::size_t i = 0; i < d.ids.size(); ++i)
        for (std::size_t j = i + 1; j < d.ids.size(); ++j) {
            int dist = sh_hamming(d.hashes[i], d.hashes[j]);
            if (dist <= k) out.emplace_back(std::min(d.ids[i], d.ids[j]), std::max(d.ids[i], d.ids[j]), dist);
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::tuple<int64_t, int64_t, int>> fast(const Data &d, int k, int threads = 1, int width = 64)
{
    AllPairsJob job(d.ids, d.hashes, k, threads, width);
    std::vector<Pair> pairs;
    while (job.step(pairs)) {}
    std::vector<std::tuple<int64_t, int64_t, int>> out;
    for (const auto &p : pairs) out.emplace_back(p.id_a, p.id_b, p.distance);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(AllPairs, EqualsBruteForceOnClusteredDataForEveryRadius)
{
    const Data d = clustered(3000, 1);
    for (int k : {0, 1, 2, 3, 4, 5, 6, 8, 10, 16, 24, 32, 64}) {
        auto expected = brute(d, k);
        ASSERT_EQ(fast(d, k), expected) << "k=" << k;  // also: no pair twice
    }
}

TEST(AllPairs, ThreadsFindTheSamePairs)
{
    const Data d = clustered(5000, 2);
    for (int k : {0, 3, 5, 8, 16}) {
        const auto one = fast(d, k, 1);
        EXPECT_EQ(fast(d, k, 2), one) << "k=" << k;
        EXPECT_EQ(fast(d, k, 7), one) << "k=" << k;
    }
}

TEST(AllPairs, WorkersPauseWhileTheCallerDoesNotCollect)
{
    // k = 64 on 2,000 rows: 1,999,000 pairs, more than may wait for the caller at once.
    Data d;
    for (int i = 0; i < 2000; ++i) {
        d.ids.push_back(i);
        d.hashes.push_back(uint64_t(i) * 0x9E3779B97F4A7C15ULL);
    }
    AllPairsJob job(d.ids, d.hashes, 64, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::vector<Pair> first;
    ASSERT_TRUE(job.step(first));
    EXPECT_LE(first.size(), std::size_t(1) << 21) << "workers kept going without the caller";
    std::vector<Pair> rest;
    while (job.step(rest)) {}
    EXPECT_EQ(first.size() + rest.size(), 2000u * 1999 / 2);
}

TEST(AllPairs, DestroyingARunningJobStopsItsWorkers)
{
    // Every pair of 200,000 rows: ~20 billion comparisons, hours of work unless stopped.
    Data d;
    for (int i = 0; i < 200000; ++i) {
        d.ids.push_back(i);
        d.hashes.push_back(uint64_t(i) * 0x9E3779B97F4A7C15ULL);
    }
    const auto start = std::chrono::steady_clock::now();
    {
        AllPairsJob job(d.ids, d.hashes, 64, 2);
        std::vector<Pair> some;
        EXPECT_TRUE(job.step(some, 50));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(AllPairs, IdenticalHashesAndManyRowsSharingOne)
{
    Data d;
    for (int i = 0; i < 40; ++i) {
        d.ids.push_back(100 - i);
        d.hashes.push_back(0xABCDEFULL);
    }
    d.ids.push_back(1000);
    d.hashes.push_back(0xABCDEFULL ^ 1);
    auto pairs = fast(d, 0);
    EXPECT_EQ(pairs.size(), 40u * 39 / 2);
    EXPECT_EQ(fast(d, 1).size(), 40u * 39 / 2 + 40);
    for (auto &[a, b, dist] : pairs) EXPECT_LT(a, b);
}

TEST(AllPairs, InlineAndNarrowJobsFindTheSamePairs)
{
    // threads = 0 runs in the caller's thread; width < 64 splits only the low bits (the caller
    // packed the bits that can differ there).
    const Data d = clustered(3000, 5);
    Data narrow = d;
    for (auto &h : narrow.hashes) h &= (1ULL << 40) - 1;
    for (int k : {0, 3, 5, 8}) {
        EXPECT_EQ(fast(d, k, 0), brute(d, k)) << "k=" << k;
        EXPECT_EQ(fast(narrow, k, 0, 40), brute(narrow, k)) << "k=" << k;
        EXPECT_EQ(fast(narrow, k, 2, 40), brute(narrow, k)) << "k=" << k;
    }
}

TEST(AllPairs, PlansAdaptToSizeAndRadius)
{
    for (int k : {0, 3, 5, 8}) {
        auto small = plan_all_pairs(1000, k), large = plan_all_pairs(10000000, k);
        EXPECT_EQ(small.blocks - small.agree, k);
        EXPECT_EQ(large.blocks - large.agree, k);
        EXPECT_GE(large.agree, small.agree) << "more rows need longer keys";
    }
    EXPECT_THROW(AllPairsJob({1}, {1}, 65), InvalidArgument);
    EXPECT_THROW(AllPairsJob({1}, {1}, -1), InvalidArgument);
    EXPECT_THROW(AllPairsJob({1}, {1}, 5, -1), InvalidArgument);
    EXPECT_THROW(AllPairsJob({1}, {1}, 5, 65), InvalidArgument);
    EXPECT_THROW(AllPairsJob({1}, {1}, 5, 1, 0), InvalidArgument);   // width
    EXPECT_THROW(AllPairsJob({1}, {1}, 5, 1, 65), InvalidArgument);
    AllPairsJob empty({}, {}, 5);
    std::vector<Pair> out;
    EXPECT_FALSE(empty.step(out));
}

TEST(Clusters, ChainsThroughIntermediatePagesFormOneCluster)
{
    std::vector<Pair> pairs = {{10, 20, 3}, {20, 30, 3}, {30, 40, 2}, {5, 7, 0}, {99, 100, 1}, {7, 99, 4}};
    auto c = connected_components(pairs);
    std::vector<std::pair<int64_t, int64_t>> expected = {{5, 5}, {7, 5}, {10, 10}, {20, 10}, {30, 10},
                                                         {40, 10}, {99, 5}, {100, 5}};
    EXPECT_EQ(c, expected);
}

TEST(BandKeys, PairsWithinKAlwaysShareAKey)
{
    std::mt19937_64 rng(2);
    for (int trial = 0; trial < 20000; ++trial) {
        const int k = trial % 65;
        const uint64_t a = rng();
        uint64_t b = a;
        for (int f = int(rng() % (k + 1)); f > 0; --f) b ^= 1ULL << (rng() % 64);
        auto ka = band_keys(a, k), kb = band_keys(b, k);
        std::set<int64_t> sa(ka.begin(), ka.end());
        bool shared = std::any_of(kb.begin(), kb.end(), [&](int64_t x) { return sa.count(x) > 0; });
        ASSERT_TRUE(shared) << "k=" << k;
    }
    EXPECT_EQ(band_keys(42, 0), std::vector<int64_t>{42});
    EXPECT_EQ(band_keys(42, 5).size(), 6u);
    EXPECT_THROW(band_keys(1, 65), InvalidArgument);
}
