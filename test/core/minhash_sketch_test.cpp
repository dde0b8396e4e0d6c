#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "minhash_sketch.hpp"
#include "resemblance_sets.hpp"

using namespace simhash;

namespace {

uint64_t sketch_of(const std::vector<uint64_t> &features)
{
    MinHashSketch s;
    s.add(features.data(), features.size());
    return s.bits();
}

// The documented lane function, written out again without the vectorized loop.
uint32_t reference_lane_value(uint64_t feature, int lane)
{
    uint32_t h = uint32_t(feature) ^ uint32_t(feature >> 32) ^ sketch_seed(lane);
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    return h ^ (h >> 16);
}

}  // namespace

// Values from an independent implementation of the definition in minhash_sketch.hpp (Python,
// arbitrary-precision integers): the sketch must never drift, or stored hashes stop matching.
TEST(MinHashSketch, KnownAnswers)
{
    EXPECT_EQ(sketch_seed(0), 0xa3820138U);
    EXPECT_EQ(sketch_seed(95), 0x0ff0cd41U);
    EXPECT_EQ(sketch_of({1, 2, 3}), UINT64_C(0x739a89d43908daab));
    EXPECT_EQ(sketch_of({UINT64_C(0xdeadbeefcafebabe)}), UINT64_C(0xe74d34513acada9b));
    EXPECT_EQ(sketch_of({UINT64_MAX, 0, 42, UINT64_C(1) << 63}), UINT64_C(0x9e6633011df9b8ea));
}

TEST(MinHashSketch, LanesAreTheMinimaOfTheDocumentedFunction)
{
    std::mt19937_64 rng(7);
    std::vector<uint64_t> features(1000);
    for (uint64_t &f : features) f = rng();
    std::vector<uint32_t> expected(kSketchLanes, UINT32_MAX);
    for (int i = 0; i < kSketchLanes; ++i)
        for (uint64_t f : features) expected[i] = std::min(expected[i], reference_lane_value(f, i));

    MinHashSketch s;
    s.add(features.data(), 400);  // in two calls: the sketch accumulates
    s.add(features.data() + 400, 600);
    for (int i = 0; i < kSketchLanes; ++i) EXPECT_EQ(s.lane(i), expected[i]) << "lane " << i;

    // Each version of the lane loop this CPU can run, not only the one add() chose.
    __builtin_cpu_init();
    const std::pair<const char *, lane_loops::Function> loops[] = {
        {"portable", lane_loops::portable},
        {"avx2", __builtin_cpu_supports("avx2") ? lane_loops::avx2 : nullptr},
        {"avx512", __builtin_cpu_supports("avx512f") ? lane_loops::avx512 : nullptr}};
    for (const auto &[name, loop] : loops) {
        if (!loop) continue;
        std::vector<uint32_t> lanes(kSketchLanes, UINT32_MAX);
        loop(lanes.data(), features.data(), features.size());
        EXPECT_EQ(lanes, expected) << name;
    }
}

TEST(MinHashSketch, NoFeaturesGiveZero) { EXPECT_EQ(sketch_of({}), 0u); }

TEST(MinHashSketch, SeesASetRepeatsAndOrderDoNotMatter)
{
    EXPECT_EQ(sketch_of({10, 20, 30}), sketch_of({30, 10, 10, 20, 30, 30}));
}

// E[distance] = 16 (1 - J) + 16 (1 - J^2) for feature sets of resemblance J: the mean over many
// trials must lie within 4 standard errors (the 64 bits are independent: binomial variance each).
TEST(MinHashSketch, ExpectedDistanceFollowsTheJaccardResemblance)
{
    std::mt19937_64 rng(20261123);
    const int trials = 300;
    for (double j : {0.3, 0.5, 0.8, 0.9, 0.95}) {
        const double exact_j = exact_resemblance(j);
        const double mean = mean_distance(rng, j, trials, [](const auto &a, const auto &b) {
            return __builtin_popcountll(sketch_of(a) ^ sketch_of(b));
        });
        const double p1 = (1 - exact_j) / 2, p2 = (1 - exact_j * exact_j) / 2;
        const double expected = 32 * p1 + 32 * p2;
        const double variance = 32 * p1 * (1 - p1) + 32 * p2 * (1 - p2);
        EXPECT_NEAR(mean, expected, 4 * std::sqrt(variance / trials)) << "J = " << exact_j;
    }
}
