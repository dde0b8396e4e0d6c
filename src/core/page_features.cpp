#include "page_features.hpp"

namespace simhash {

PageFeatures::PageFeatures(const FeatureOptions &options, bool html) : stream_(options)
{
    if (html) html_.emplace();
}

void PageFeatures::feed(const char *data, std::size_t len, std::vector<uint64_t> &out)
{
    if (!html_) {
        stream_.feed(data, len, out);
        return;
    }
    text_.clear();
    html_->feed(data, len, text_);
    stream_.feed(text_.data(), text_.size(), out);
}

void PageFeatures::finish(std::vector<uint64_t> &out)
{
    if (html_) {
        text_.clear();
        html_->finish(text_);
        stream_.feed(text_.data(), text_.size(), out);
    }
    stream_.finish(out);
}

}  // namespace simhash
