#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "all_pairs.hpp"
#include "core_errors.hpp"
#include "page_resemblance.hpp"
#include "resemblance_check.hpp"
#include "resemblance_sets.hpp"
#include "resemblance_sketch.hpp"

using namespace simhash;

namespace {

using Sketch = std::vector<uint8_t>;

Sketch sketch_of(const std::vector<uint64_t> &features)
{
    ResemblanceBins bins;
    bins.add(features.data(), features.size());
    Sketch out(kResemblanceBytes);
    bins.sketch(out.data());
    return out;
}

double estimate(const std::vector<uint64_t> &a, const std::vector<uint64_t> &b)
{
    return resemblance_estimate(sketch_of(a).data(), sketch_of(b).data());
}

// Mean and standard deviation of the estimate over fresh sets of resemblance exact_resemblance(j).
std::pair<double, double> estimates(double j, int shared, int trials, unsigned seed)
{
    std::mt19937_64 rng(seed);
    double sum = 0, sum2 = 0;
    for (int t = 0; t < trials; ++t) {
        const auto sets = resemblance_sets(rng, j, shared);
        const double e = estimate(sets.a, sets.b);
        sum += e;
        sum2 += e * e;
    }
    const double mean = sum / trials;
    return {mean, std::sqrt(std::max(0.0, sum2 / trials - mean * mean))};
}

// The standard deviation of 2 * (agreements / 512) - 1 for independent one-bit samples.
double one_bit_sd(double j)
{
    const double p = (1 + j) / 2;
    return 2 * std::sqrt(p * (1 - p) / kResemblanceBins);
}

}  // namespace

TEST(ResemblanceSketch, IdenticalSetsAgreeEverywhere)
{
    std::mt19937_64 rng(1);
    std::vector<uint64_t> f(300);
    for (auto &x : f) x = rng();
    std::vector<uint64_t> shuffled = f;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    shuffled.insert(shuffled.end(), f.begin(), f.begin() + 50);  // repeats change nothing
    EXPECT_EQ(sketch_of(f), sketch_of(shuffled));
    EXPECT_EQ(estimate(f, shuffled), 1.0);
}

TEST(ResemblanceSketch, NoFeaturesGiveAllZeroBits)
{
    EXPECT_EQ(sketch_of({}), Sketch(kResemblanceBytes, 0));
    EXPECT_EQ(estimate({}, {}), 1.0);
}

TEST(ResemblanceSketch, OneFeatureFillsEveryBin)
{
    // Every bin borrows the one non-empty bin's rank, each with its own bit: about half are set.
    const Sketch s = sketch_of({42});
    int ones = 0;
    for (uint8_t byte : s) ones += __builtin_popcount(byte);
    EXPECT_GT(ones, 200);
    EXPECT_LT(ones, 312);
    EXPECT_EQ(estimate({42}, {42}), 1.0);
}

TEST(ResemblanceSketch, PiecesGiveTheSameSketch)
{
    std::mt19937_64 rng(2);
    std::vector<uint64_t> f(1000);
    for (auto &x : f) x = rng();
    ResemblanceBins bins;
    bins.add(f.data(), 400);
    bins.add(f.data() + 400, 600);
    Sketch pieces(kResemblanceBytes);
    bins.sketch(pieces.data());
    EXPECT_EQ(pieces, sketch_of(f));
}

// The estimate is unbiased and as precise as 512 independent one-bit samples, for pages far
// larger than the 512 bins and for pages far smaller (where densification fills the bins).
TEST(ResemblanceSketch, EstimatesResemblanceWithOneBitPrecision)
{
    for (int shared : {40, 400, 4000}) {
        for (double target : {0.5, 0.8, 0.9, 0.95}) {
            const double j = exact_resemblance(target, shared);
            const auto [mean, sd] = estimates(target, shared, 400, unsigned(shared * 100 + target * 100));
            SCOPED_TRACE("shared " + std::to_string(shared) + ", J " + std::to_string(j) + ": mean " +
                         std::to_string(mean) + ", sd " + std::to_string(sd) + " vs " + std::to_string(one_bit_sd(j)));
            EXPECT_NEAR(mean, j, 4 * one_bit_sd(j) / std::sqrt(400.0) + 0.004);
            EXPECT_LT(sd, 1.3 * one_bit_sd(j));  // measured: within 15% of it at every size
        }
    }
}

TEST(ResemblanceSketch, UnrelatedPagesEstimateNearZero)
{
    std::mt19937_64 rng(7);
    double sum = 0;
    for (int t = 0; t < 200; ++t) {
        std::vector<uint64_t> a(400), b(400);
        for (auto &x : a) x = rng();
        for (auto &x : b) x = rng();
        sum += estimate(a, b);
    }
    // Half the bits agree by chance, so the clamped estimate averages about 0.035 at J = 0.
    EXPECT_LT(sum / 200, 0.06);
}

TEST(PageResemblance, PiecesAndHtmlFollowTheSimhashFeatures)
{
    const std::string text = "the quick brown fox jumps over the lazy dog and runs far away from here";
    FeatureOptions options;
    PageResemblance whole(options, false), pieces(options, false), html(options, true), empty(options, false);
    whole.feed(text.data(), text.size());
    pieces.feed(text.data(), 17);
    pieces.feed(text.data() + 17, text.size() - 17);
    const std::string page = "<html><body><p>" + text + "</p><script>var x = 1;</script></body></html>";
    html.feed(page.data(), page.size());
    Sketch a(kResemblanceBytes), b(kResemblanceBytes), c(kResemblanceBytes), e(kResemblanceBytes);
    whole.result(a.data());
    pieces.result(b.data());
    html.result(c.data());
    empty.result(e.data());
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
    EXPECT_EQ(e, Sketch(kResemblanceBytes, 0));
    options.size = 0;
    EXPECT_THROW(PageResemblance(options, false), InvalidArgument);
}

TEST(ResemblanceCheck, ConfirmedJobKeepsExactlyThePairsAtOrAboveTheThreshold)
{
    // 60 families of near copies: hashes within a few bits, feature sets of varied resemblance.
    std::mt19937_64 rng(9);
    std::vector<int64_t> ids;
    std::vector<uint64_t> hashes;
    std::vector<uint8_t> sketches;
    std::vector<Sketch> by_row;
    for (int family = 0; family < 60; ++family) {
        const uint64_t base = rng();
        std::vector<uint64_t> core(200);
        for (auto &x : core) x = rng();
        for (int member = 0; member < 4; ++member) {
            uint64_t h = base;
            for (int f = int(rng() % 4); f > 0; --f) h ^= 1ULL << (rng() % 64);
            std::vector<uint64_t> features = core;
            for (int extra = int(rng() % 120); extra > 0; --extra) features.push_back(rng());
            ids.push_back(int64_t(ids.size()) * 7 + 3);
            hashes.push_back(h);
            by_row.push_back(sketch_of(features));
            sketches.insert(sketches.end(), by_row.back().begin(), by_row.back().end());
        }
    }
    const double min = 0.7;
    AllPairsJob plain(ids, hashes, 5, 0);
    AllPairsJob confirmed(ids, hashes, 5, 2, 64, std::make_shared<ResemblanceCheck>(sketches, min));
    std::vector<Pair> all, kept;
    while (plain.step(all)) {
    }
    while (confirmed.step(kept)) {
    }
    std::set<std::tuple<int64_t, int64_t, int, float>> expected, got;
    for (const auto &p : all) {
        const double j = resemblance_estimate(by_row[std::size_t((p.id_a - 3) / 7)].data(),
                                              by_row[std::size_t((p.id_b - 3) / 7)].data());
        if (j >= min) expected.insert({p.id_a, p.id_b, p.distance, float(j)});
    }
    for (const auto &p : kept) got.insert({p.id_a, p.id_b, p.distance, p.score});
    EXPECT_EQ(got, expected);
    EXPECT_GT(expected.size(), 20u);
    EXPECT_LT(expected.size(), all.size());  // the check removed some
    EXPECT_THROW(ResemblanceCheck(sketches, 1.5), InvalidArgument);
    EXPECT_THROW(ResemblanceCheck(sketches, std::nan("")), InvalidArgument);
}
