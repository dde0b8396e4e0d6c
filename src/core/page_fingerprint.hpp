// simhash of a page: (HTML ->) text -> features -> one-bit min-hashes (the default,
// minhash_sketch.hpp) or weights -> Charikar. Fed in pieces. The same features give the page's
// legacy min-hash fingerprints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "html_text.hpp"
#include "min_hashes.hpp"
#include "minhash_sketch.hpp"
#include "text_features.hpp"

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
    // The caller will ask for the legacy min-hashes, not the simhash. Where the result is a
    // minimum over the features (those, and the default simhash), each piece's features are
    // folded into it as they come, so memory stays bounded whatever the page's size.
    bool legacy_min_hashes = false;
};

// Throws InvalidArgument for options out of range or that do not go together.
void validate(const PageOptions &options);

class PageFingerprint {
public:
    explicit PageFingerprint(const PageOptions &options);
    void feed(const char *data, std::size_t len);
    // Ends the input and returns the simhash (0 when the page has no features). A page computes
    // one result: simhash() without options.legacy_min_hashes, min_hashes() with it.
    uint64_t simhash();
    // Ends the input and writes the 128 min-hashes of its features (see min_hashes.hpp); the
    // weighting option does not apply: a min-hash sees the set of features.
    void min_hashes(uint64_t out[kMinHashes]);
    // Feature hashes held for the end of the input (for tests: 0 after each piece when folding).
    std::size_t held_features() const { return features_.size(); }

private:
    void finish();
    bool folds() const;
    void fold();

    PageOptions options_;
    std::optional<HtmlText> html_;
    std::string text_;  // visible text of the current HTML piece
    FeatureStream stream_;
    std::vector<uint64_t> features_;
    MinHashSketch sketch_;                 // when folding for the default simhash
    uint64_t legacy_entries_[kMinHashes];  // when folding for the legacy min-hashes
    bool finished_ = false;
};

}  // namespace simhash
