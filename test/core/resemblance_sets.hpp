// Random feature sets of known Jaccard resemblance, for the statistical tests of the min-hash
// families: 400 features in both, and as many only in each as puts J nearest the target.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

struct ResemblanceSets {
    std::vector<uint64_t> a, b;
};

constexpr int kSharedFeatures = 400;

inline int features_only_in_each(double target_j, int shared)
{
    return int(std::lround(shared * (1 - target_j) / (2 * target_j)));
}

inline double exact_resemblance(double target_j, int shared = kSharedFeatures)
{
    return double(shared) / (shared + 2 * features_only_in_each(target_j, shared));
}

inline ResemblanceSets resemblance_sets(std::mt19937_64 &rng, double target_j, int shared = kSharedFeatures)
{
    ResemblanceSets s;
    for (int i = 0; i < shared; ++i) {
        const uint64_t f = rng();
        s.a.push_back(f);
        s.b.push_back(f);
    }
    const int each_only = features_only_in_each(target_j, shared);
    for (int i = 0; i < each_only; ++i) s.a.push_back(rng());
    for (int i = 0; i < each_only; ++i) s.b.push_back(rng());
    return s;
}

// The mean of distance(a, b) over `trials` fresh pairs of sets of resemblance exact_resemblance(target_j).
template <typename Distance>
double mean_distance(std::mt19937_64 &rng, double target_j, int trials, Distance distance)
{
    double sum = 0;
    for (int t = 0; t < trials; ++t) {
        const auto sets = resemblance_sets(rng, target_j);
        sum += distance(sets.a, sets.b);
    }
    return sum / trials;
}
