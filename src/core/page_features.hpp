// The front end every page result shares: (HTML ->) visible text -> features, fed in pieces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "html_text.hpp"
#include "text_features.hpp"

namespace simhash {

class PageFeatures {
public:
    // html: the input is HTML, whose visible text is taken first.
    PageFeatures(const FeatureOptions &options, bool html);
    // Appends the features that the next piece completes to out.
    void feed(const char *data, std::size_t len, std::vector<uint64_t> &out);
    // Ends the input: appends the last features to out.
    void finish(std::vector<uint64_t> &out);

private:
    std::optional<HtmlText> html_;
    std::string text_;  // visible text of the current HTML piece
    FeatureStream stream_;
};

}  // namespace simhash
