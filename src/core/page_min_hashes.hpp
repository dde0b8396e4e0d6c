// The legacy fingerprints of a page: the 128 min-hashes of its feature set (min_hashes.hpp), fed
// in pieces. Each piece's features are folded into the minima as they come, so memory stays
// bounded whatever the page's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "min_hashes.hpp"
#include "page_features.hpp"

namespace simhash {

class PageMinHashes {
public:
    // Throws InvalidArgument for a shingle size outside 1..64.
    PageMinHashes(const FeatureOptions &options, bool html);
    void feed(const char *data, std::size_t len);
    // Ends the input and writes the 128 min-hashes (all UINT64_MAX for a page without features).
    void result(uint64_t out[kMinHashes]);

private:
    void fold();

    PageFeatures front_;
    std::vector<uint64_t> piece_;  // the features of the current piece
    uint64_t entries_[kMinHashes];
    bool finished_ = false;
};

}  // namespace simhash
