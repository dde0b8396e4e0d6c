#include "page_bridge.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "bridge_guard.hpp"
#include "html_text.hpp"
#include "page_min_hashes.hpp"
#include "page_resemblance.hpp"
#include "page_simhash.hpp"

static_assert(SH_RESEMBLANCE_BYTES == simhash::kResemblanceBytes, "bridge and core disagree");

// A page is built for one result: its simhash, its legacy min-hashes or its resemblance sketch.
struct sh_page {
    std::optional<simhash::PageSimhash> simhash;
    std::optional<simhash::PageMinHashes> min_hashes;
    std::optional<simhash::PageResemblance> resemblance;
};

struct sh_html_text {
    simhash::HtmlText extractor;
    std::string text;
};

using simhash::guarded;

extern "C" sh_status sh_page_new(const sh_page_options *o, sh_page **page, sh_error *err) noexcept
{
    *page = nullptr;
    return guarded(err, [&] {
        simhash::PageOptions options;
        options.features.unit = o->unit == SH_UNIT_CHARACTER ? simhash::FeatureOptions::Unit::character
                                                              : simhash::FeatureOptions::Unit::word;
        options.features.size = o->size;
        options.features.fold_case = o->fold_case != 0;
        options.weighting = o->weighting == SH_WEIGHT_FREQUENCY ? simhash::Weighting::frequency
                            : o->weighting == SH_WEIGHT_LOG     ? simhash::Weighting::log
                                                                : simhash::Weighting::distinct;
        options.method = o->method == SH_METHOD_CHARIKAR ? simhash::Method::charikar : simhash::Method::minhash;
        options.html = o->html != 0;
        auto made = std::make_unique<sh_page>();
        if (o->result == SH_RESULT_MIN_HASHES)
            made->min_hashes.emplace(options.features, options.html);
        else if (o->result == SH_RESULT_RESEMBLANCE)
            made->resemblance.emplace(options.features, options.html);
        else
            made->simhash.emplace(options);
        *page = made.release();
    });
}

extern "C" sh_status sh_page_feed(sh_page *page, const char *data, size_t len, sh_error *err) noexcept
{
    return guarded(err, [&] {
        if (page->simhash)
            page->simhash->feed(data, len);
        else if (page->min_hashes)
            page->min_hashes->feed(data, len);
        else
            page->resemblance->feed(data, len);
    });
}

extern "C" sh_status sh_page_simhash(sh_page *page, uint64_t *result, sh_error *err) noexcept
{
    return guarded(err, [&] {
        if (!page->simhash) throw std::logic_error("the simhash of a page built for another result");
        *result = page->simhash->result();
    });
}

extern "C" sh_status sh_page_min_hashes(sh_page *page, uint64_t *result, sh_error *err) noexcept
{
    return guarded(err, [&] {
        if (!page->min_hashes) throw std::logic_error("the min-hashes of a page built for another result");
        page->min_hashes->result(result);
    });
}

extern "C" sh_status sh_page_resemblance(sh_page *page, uint8_t *result, sh_error *err) noexcept
{
    return guarded(err, [&] {
        if (!page->resemblance) throw std::logic_error("the resemblance sketch of a page built for another result");
        page->resemblance->result(result);
    });
}

extern "C" void sh_page_free(sh_page *page) noexcept { delete page; }

extern "C" double sh_resemblance(const uint8_t *a, const uint8_t *b) noexcept
{
    return simhash::resemblance_estimate(a, b);
}

extern "C" sh_status sh_html_text_new(sh_html_text **h, sh_error *err) noexcept
{
    *h = nullptr;
    return guarded(err, [&] { *h = new sh_html_text(); });
}

extern "C" sh_status sh_html_text_feed(sh_html_text *h, const char *data, size_t len, sh_error *err) noexcept
{
    return guarded(err, [&] { h->extractor.feed(data, len, h->text); });
}

extern "C" sh_status sh_html_text_result(sh_html_text *h, const char **data, size_t *len, sh_error *err) noexcept
{
    return guarded(err, [&] {
        h->extractor.finish(h->text);
        *data = h->text.data();
        *len = h->text.size();
    });
}

extern "C" void sh_html_text_free(sh_html_text *h) noexcept { delete h; }
