#include "page_fingerprint.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "bit_counts.hpp"
#include "core_errors.hpp"
#include "charikar.h"
#include "distinct_features.hpp"
#include "minhash_sketch.hpp"
#include "splitmix64.hpp"

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
// becomes splitmix64_output(f + k * 0x9e3779b97f4a7c15). The resemblance of two such sets is the
// pages' multiset resemblance, sum of min(counts) over sum of max(counts).
void number_repeats(std::vector<uint64_t> &features)
{
    std::sort(features.begin(), features.end());
    for (std::size_t i = 0; i < features.size();) {
        std::size_t j = i + 1;
        while (j < features.size() && features[j] == features[i]) ++j;
        for (std::size_t k = 1; k < j - i; ++k) features[i + k] = splitmix64_nth(features[i], int(k - 1));
        i = j;
    }
}

}  // namespace

PageFingerprint::PageFingerprint(const PageOptions &options)
    : options_(options), stream_(options.features)
{
    validate(options);
    if (options.html) html_.emplace();
    simhash::min_hashes(nullptr, 0, legacy_entries_);
}

// A minimum can take the features piece by piece; sums over distinct or counted features cannot.
bool PageFingerprint::folds() const
{
    return options_.legacy_min_hashes ||
           (options_.method == Method::minhash && options_.weighting == Weighting::distinct);
}

void PageFingerprint::fold()
{
    if (!folds()) return;
    if (options_.legacy_min_hashes) {
        keep_distinct(features_);  // fewer values to permute 128 times
        add_min_hashes(features_.data(), features_.size(), legacy_entries_);
    } else {
        sketch_.add(features_.data(), features_.size());
    }
    features_.clear();
}

void PageFingerprint::feed(const char *data, std::size_t len)
{
    if (!html_) {
        stream_.feed(data, len, features_);
    } else {
        text_.clear();
        html_->feed(data, len, text_);
        stream_.feed(text_.data(), text_.size(), features_);
    }
    fold();
}

void PageFingerprint::finish()
{
    if (finished_) return;
    if (html_) {
        text_.clear();
        html_->finish(text_);
        stream_.feed(text_.data(), text_.size(), features_);
    }
    stream_.finish(features_);
    fold();
    finished_ = true;
}

uint64_t PageFingerprint::simhash()
{
    if (options_.legacy_min_hashes) throw std::logic_error("simhash() of a page built for its min-hashes");
    finish();
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

void PageFingerprint::min_hashes(uint64_t out[kMinHashes])
{
    if (!options_.legacy_min_hashes) throw std::logic_error("min_hashes() of a page built for its simhash");
    finish();
    std::copy(legacy_entries_, legacy_entries_ + kMinHashes, out);
}

}  // namespace simhash
