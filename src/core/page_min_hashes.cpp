#include "page_min_hashes.hpp"

#include <algorithm>

#include "distinct_features.hpp"
#include "page_simhash.hpp"

namespace simhash {

PageMinHashes::PageMinHashes(const FeatureOptions &options, bool html) : front_(options, html)
{
    PageOptions page;
    page.features = options;
    validate(page);
    min_hashes(nullptr, 0, entries_);
}

void PageMinHashes::fold()
{
    keep_distinct(piece_);  // fewer values to permute 128 times
    add_min_hashes(piece_.data(), piece_.size(), entries_);
    piece_.clear();
}

void PageMinHashes::feed(const char *data, std::size_t len)
{
    front_.feed(data, len, piece_);
    fold();
}

void PageMinHashes::result(uint64_t out[kMinHashes])
{
    if (!finished_) {
        front_.finish(piece_);
        fold();
        finished_ = true;
    }
    std::copy(entries_, entries_ + kMinHashes, out);
}

}  // namespace simhash
