#include "page_fingerprint.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "bridge_guard.hpp"
#include "charikar.h"

namespace simhash {

void validate(const PageOptions &options)
{
    if (options.features.size < 1 || options.features.size > 64)
        throw InvalidArgument("shingle size must be between 1 and 64, got " +
                              std::to_string(options.features.size));
}

PageFingerprint::PageFingerprint(const PageOptions &options)
    : options_(options), stream_(options.features)
{
    validate(options);
    if (options.html) html_.emplace();
}

void PageFingerprint::feed(const char *data, std::size_t len)
{
    if (!html_) {
        stream_.feed(data, len, features_);
        return;
    }
    text_.clear();
    html_->feed(data, len, text_);
    stream_.feed(text_.data(), text_.size(), features_);
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
    finished_ = true;
}

uint64_t PageFingerprint::simhash()
{
    finish();
    std::sort(features_.begin(), features_.end());
    sh_charikar acc;
    sh_charikar_init(&acc);
    for (std::size_t i = 0; i < features_.size();) {
        std::size_t j = i;
        while (j < features_.size() && features_[j] == features_[i]) ++j;
        const double count = double(j - i);
        double weight = 1.0;
        if (options_.weighting == Weighting::frequency) weight = count;
        if (options_.weighting == Weighting::log) weight = 1.0 + std::log(count);
        sh_charikar_add(&acc, features_[i], weight);
        i = j;
    }
    return sh_charikar_result(&acc);
}

void PageFingerprint::min_hashes(uint64_t out[kMinHashes])
{
    finish();
    simhash::min_hashes(features_.data(), features_.size(), out);
}

}  // namespace simhash
