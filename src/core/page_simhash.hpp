// simhash of a page: (HTML ->) text -> features (page_features.hpp) -> one-bit min-hashes (the
// default, minhash_sketch.hpp) or weights -> Charikar. Fed in pieces. The page's legacy min-hash
// fingerprints are page_min_hashes.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "minhash_sketch.hpp"
#include "page_features.hpp"

namespace simhash {

enum class Weighting {
    distinct,   // each distinct feature once (weight 1)
    frequency,  // a feature counts as often as it occurs
    log         // 1 + ln(occurrences): repeats count, but less and less
};

enum class Method {
    minhash,   // 64 one-bit min-hashes of the feature set (minhash_sketch.hpp)
    charikar   // the textbook simhash: Charikar's sum over the weighted features
};

struct PageOptions {
    FeatureOptions features;
    Method method = Method::minhash;
    Weighting weighting = Weighting::distinct;  // log needs Method::charikar
    bool html = false;  // the input is HTML: take its visible text first
};

// Throws InvalidArgument for options out of range or that do not go together.
void validate(const PageOptions &options);

// Where the simhash is a minimum over the features (the default: method minhash, weighting
// distinct), each piece's features are folded into it as they come, so memory stays bounded
// whatever the page's size; Charikar's sums and numbered repeats keep the features to the end.
class PageSimhash {
public:
    explicit PageSimhash(const PageOptions &options);
    void feed(const char *data, std::size_t len);
    // Ends the input and returns the simhash (0 when the page has no features).
    uint64_t result();

private:
    bool folds() const;
    void fold();
    uint64_t compute();

    PageOptions options_;
    PageFeatures front_;
    std::vector<uint64_t> features_;  // of the current piece when folding, else of the page
    MinHashSketch sketch_;            // when folding
    bool finished_ = false;
    uint64_t result_ = 0;
};

}  // namespace simhash
