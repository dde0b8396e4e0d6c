#include "page_resemblance.hpp"

#include "page_simhash.hpp"

namespace simhash {

PageResemblance::PageResemblance(const FeatureOptions &options, bool html) : front_(options, html)
{
    PageOptions page;
    page.features = options;
    validate(page);
}

void PageResemblance::fold()
{
    bins_.add(piece_.data(), piece_.size());
    piece_.clear();
}

void PageResemblance::feed(const char *data, std::size_t len)
{
    front_.feed(data, len, piece_);
    fold();
}

void PageResemblance::result(uint8_t out[kResemblanceBytes])
{
    if (!finished_) {
        front_.finish(piece_);
        fold();
        finished_ = true;
    }
    bins_.sketch(out);
}

}  // namespace simhash
