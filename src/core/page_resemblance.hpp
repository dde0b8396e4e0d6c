// The resemblance sketch of a page (resemblance_sketch.hpp), fed in pieces over the same features
// as its simhash. Each piece's features are folded into the bins as they come, so memory stays
// bounded whatever the page's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "page_features.hpp"
#include "resemblance_sketch.hpp"

namespace simhash {

class PageResemblance {
public:
    // Throws InvalidArgument for a shingle size outside 1..64.
    PageResemblance(const FeatureOptions &options, bool html);
    void feed(const char *data, std::size_t len);
    // Ends the input and writes the sketch (all bits 0 for a page without features).
    void result(uint8_t out[kResemblanceBytes]);

private:
    void fold();

    PageFeatures front_;
    std::vector<uint64_t> piece_;  // the features of the current piece
    ResemblanceBins bins_;
    bool finished_ = false;
};

}  // namespace simhash
