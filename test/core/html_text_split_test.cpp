#include <gtest/gtest.h>

#include <string>

#include "html_text.hpp"

using simhash::HtmlText;

namespace {

std::string visible_split_at(const std::string &html, std::size_t cut)
{
    HtmlText h;
    std::string out;
    h.feed(html.data(), cut, out);
    h.feed(html.data() + cut, html.size() - cut, out);
    h.finish(out);
    return out;
}

}  // namespace

// Every two-piece split, including one between the '/' and '>' of a self-closing raw-text tag,
// reads the document as a whole.
TEST(HtmlTextSplit, EverySplitPointGivesTheWholeDocumentsText)
{
    const std::string html = "a<script/>b<style>x</style>c<svg src='q>'/>d<!-- - -- > -->e&amp;f<p>g</p>"
                             "<script>if (a < b) '</scr';</script>h&#x263A;i<x";
    const std::string whole = visible_split_at(html, html.size());
    EXPECT_NE(whole.find('b'), std::string::npos);  // a self-closing <script/> hides nothing
    EXPECT_NE(whole.find('d'), std::string::npos);
    EXPECT_EQ(whole.find('x'), std::string::npos);
    for (std::size_t cut = 0; cut <= html.size(); ++cut) EXPECT_EQ(visible_split_at(html, cut), whole) << cut;
}
