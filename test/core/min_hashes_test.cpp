#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "min_hashes.hpp"
#include "page_min_hashes.hpp"
#include "resemblance_sets.hpp"

using namespace simhash;

namespace {

int differences(const uint64_t *a, const uint64_t *b)
{
    int n = 0;
    for (int i = 0; i < kMinHashes; ++i) n += a[i] != b[i];
    return n;
}

std::vector<uint64_t> page_min_hashes(const std::string &text)
{
    PageMinHashes page(FeatureOptions{}, false);
    page.feed(text.data(), text.size());
    std::vector<uint64_t> out(kMinHashes);
    page.result(out.data());
    return out;
}

}  // namespace

// Pinned values: the documented family (SplitMix64 seeds, MurmurHash3 finalizer) must never drift.
TEST(MinHashes, KnownAnswers)
{
    EXPECT_EQ(min_hash_seed(0), UINT64_C(0xe220a8397b1dcdaf));
    EXPECT_EQ(min_hash_seed(1), UINT64_C(0x6e789e6aa1b965f4));
    EXPECT_EQ(min_hash_permute(0, 0), UINT64_C(0x9474f0eb06d79fd8));  // fmix64(seed 0), computed independently
    const uint64_t features[] = {1, 2, 3};
    uint64_t out[kMinHashes];
    min_hashes(features, 3, out);
    for (int i = 0; i < kMinHashes; ++i) {
        uint64_t expected = UINT64_MAX;
        for (uint64_t f : features) expected = std::min(expected, min_hash_permute(f, i));
        EXPECT_EQ(out[i], expected) << "entry " << i;
    }
}

TEST(MinHashes, NoFeaturesGiveAllOnes)
{
    uint64_t out[kMinHashes];
    min_hashes(nullptr, 0, out);
    for (uint64_t v : out) EXPECT_EQ(v, UINT64_MAX);
    const auto page = page_min_hashes("");
    for (uint64_t v : page) EXPECT_EQ(v, UINT64_MAX);
}

TEST(MinHashes, SetSemantics)
{
    const uint64_t once[] = {10, 20, 30};
    const uint64_t repeated[] = {30, 10, 10, 20, 30, 30};
    uint64_t a[kMinHashes], b[kMinHashes];
    min_hashes(once, 3, a);
    min_hashes(repeated, 6, b);
    EXPECT_EQ(differences(a, b), 0);
}

TEST(MinHashes, PagesShareEntriesAsTheyShareShingles)
{
    const auto a = page_min_hashes("the quick brown fox jumps over the lazy dog near the river bank today");
    const auto same = page_min_hashes("The QUICK brown fox jumps over the lazy dog near the river bank today");
    const auto other = page_min_hashes("an entirely different sentence about databases and indexes and hashing");
    EXPECT_EQ(differences(a.data(), same.data()), 0);
    EXPECT_GT(differences(a.data(), other.data()), 120);
}

// E[difference] = 128 (1 - J): for feature sets of known resemblance J, the mean over many trials
// must lie within 4 standard errors (binomial variance 128 J (1 - J) per trial).
TEST(MinHashes, ExpectedDifferenceIs128TimesOneMinusJaccard)
{
    std::mt19937_64 rng(20261122);
    const int trials = 300;
    for (double j : {0.3, 0.5, 0.8, 0.9, 0.95}) {
        const double exact_j = exact_resemblance(j);
        const double mean = mean_distance(rng, j, trials, [](const auto &a, const auto &b) {
            uint64_t ma[kMinHashes], mb[kMinHashes];
            min_hashes(a.data(), a.size(), ma);
            min_hashes(b.data(), b.size(), mb);
            return differences(ma, mb);
        });
        const double expected = kMinHashes * (1 - exact_j);
        const double standard_error = std::sqrt(kMinHashes * exact_j * (1 - exact_j) / trials);
        EXPECT_NEAR(mean, expected, 4 * standard_error) << "J = " << exact_j;
    }
}
