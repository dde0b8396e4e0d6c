#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "hamming.h"
#include "radius_prior.h"

TEST(RadiusPrior, KnownValues)
{
    EXPECT_EQ(sh_random_within_probability(-1), 0.0);
    EXPECT_DOUBLE_EQ(sh_random_within_probability(0), std::ldexp(1.0, -64));
    EXPECT_DOUBLE_EQ(sh_random_within_probability(1), 65.0 * std::ldexp(1.0, -64));
    EXPECT_EQ(sh_random_within_probability(64), 1.0);
    EXPECT_NEAR(sh_random_within_probability(31) + sh_random_within_probability(32), 1.0, 1e-12);
}

TEST(RadiusPrior, MatchesSampledRandomPairsNearTheMiddle)
{
    std::mt19937_64 rng(3);
    const int n = 200000;
    int within = 0;
    for (int i = 0; i < n; ++i) within += sh_hamming(rng(), rng()) <= 28;
    EXPECT_NEAR(within / double(n), sh_random_within_probability(28), 0.005);
}

// The planner rejects a selectivity above 1 with an internal error: every radius, including those
// whose sum rounds past 2^64, gives a probability.
TEST(RadiusPrior, IsAProbabilityAtEveryRadius)
{
    double previous = 0.0;
    for (int k = -1; k <= 65; ++k) {
        double p = sh_random_within_probability(k);
        EXPECT_GE(p, 0.0) << k;
        EXPECT_LE(p, 1.0) << k;
        EXPECT_GE(p, previous) << k;
        previous = p;
    }
    EXPECT_EQ(sh_random_within_probability(2147483647), 1.0);
    EXPECT_EQ(sh_random_within_probability(-2147483647 - 1), 0.0);
}
