#include "page_simhash.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "bit_counts.hpp"
#include "core_errors.hpp"
#include "charikar.h"
#include "distinct_features.hpp"
#include "minhash_sketch.hpp"
#include "splitmix64.h"

namespace simhash {

void validate(const PageOptions &options)
{
    if (options.features.size < 1 || options.features.size > 64)
        throw InvalidArgument("shingle size must be between 1 and 64, got " +
                              std::to_string(options.features.size));
    if (options.method == Method::minhash && options.weighting == Weighting::log)
        throw InvalidArgument("weighting \"log\" needs method \"charikar\": a min-hash weighs a feature by "
                              "whole occurrences only ('distinct' or 'frequency')");
}

namespace {

// Makes the multiset of features a set a min-hash can see: the k-th repeat (k >= 1) of a feature f
// becomes sh_splitmix64_output(f + k * 0x9e3779b97f4a7c15). The resemblance of two such sets is the
// pages' multiset resemblance, sum of min(counts) over sum of max(counts).
void number_repeats(std::vector<uint64_t> &features)
{
    std::sort(features.begin(), features.end());
    for (std::size_t i = 0; i < features.size();) {
        std::size_t j = i + 1;
        while (j < features.size() && features[j] == features[i]) ++j;
        for (std::size_t k = 1; k < j - i; ++k) features[i + k] = sh_splitmix64_nth(features[i], int(k - 1));
        i = j;
    }
}

}  // namespace

PageSimhash::PageSimhash(const PageOptions &options) : options_(options), front_(options.features, options.html)
{
    validate(options);
}

// A minimum can take the features piece by piece; sums over distinct or counted features cannot.
bool PageSimhash::folds() const
{
    return options_.method == Method::minhash && options_.weighting == Weighting::distinct;
}

void PageSimhash::fold()
{
    if (!folds()) return;
    sketch_.add(features_.data(), features_.size());
    features_.clear();
}

void PageSimhash::feed(const char *data, std::size_t len)
{
    front_.feed(data, len, features_);
    fold();
}

uint64_t PageSimhash::result()
{
    if (!finished_) {
        front_.finish(features_);
        fold();
        result_ = compute();
        finished_ = true;
    }
    return result_;
}

uint64_t PageSimhash::compute()
{
    if (options_.method == Method::minhash) {
        if (options_.weighting == Weighting::frequency) {  // repeats are numbered over the whole page
            number_repeats(features_);
            sketch_.add(features_.data(), features_.size());
        }
        return sketch_.bits();
    }
    // Weights 1 (distinct) and occurrence counts (frequency) are whole numbers: their Charikar sums
    // are counted exactly in integers. A frequency weight is the same as every occurrence counting
    // once, so that weighting needs no grouping at all.
    if (options_.weighting == Weighting::frequency) return unweighted_simhash(features_.data(), features_.size());
    if (options_.weighting == Weighting::distinct) {
        keep_distinct(features_);
        return unweighted_simhash(features_.data(), features_.size());
    }
    std::sort(features_.begin(), features_.end());
    sh_charikar acc;
    sh_charikar_init(&acc);
    for (std::size_t i = 0; i < features_.size();) {
        std::size_t j = i;
        while (j < features_.size() && features_[j] == features_[i]) ++j;
        sh_charikar_add(&acc, features_[i], 1.0 + std::log(double(j - i)));
        i = j;
    }
    return sh_charikar_result(&acc);
}

}  // namespace simhash
