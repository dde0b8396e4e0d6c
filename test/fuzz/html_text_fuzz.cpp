// libFuzzer target: HTML to visible text, and the HTML path of the page simhash.
// Input: byte 0 = seed of the piece sizes; the rest is the document. Invariants: no crash or
// sanitizer report; any split into pieces gives the text of the whole; valid UTF-8 in gives valid
// UTF-8 out; simhash_html of the document equals the simhash of its visible text.
#include <string>

#include "fuzz_support.hpp"
#include "html_text.hpp"
#include "page_simhash.hpp"

using namespace simhash;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const auto *html = reinterpret_cast<const char *>(data + 1);
    const std::size_t len = size - 1;

    std::string whole;
    HtmlText one;
    one.feed(html, len, whole);
    one.finish(whole);

    std::string split;
    HtmlText many;
    fuzz::Pieces pieces(data[0], 1 + data[0] % 13);
    fuzz::feed_in_pieces(html, len, pieces, [&](const char *p, std::size_t n) { many.feed(p, n, split); });
    many.finish(split);
    fuzz::check(split == whole, "visible text depends on how the document is split");

    if (fuzz::valid_utf8(data + 1, len))
        fuzz::check(fuzz::valid_utf8(reinterpret_cast<const unsigned char *>(whole.data()), whole.size()),
                    "valid UTF-8 in, invalid UTF-8 out");

    PageOptions as_html;
    as_html.html = true;
    PageSimhash from_html(as_html);
    fuzz::Pieces page_pieces(data[0] + 1u, 97);
    fuzz::feed_in_pieces(html, len, page_pieces, [&](const char *p, std::size_t n) { from_html.feed(p, n); });
    PageSimhash from_text(PageOptions{});
    from_text.feed(whole.data(), whole.size());
    fuzz::check(from_html.result() == from_text.result(), "simhash_html differs from simhash of html_text");
    return 0;
}
