#include <gtest/gtest.h>

#include <string>

#include "core_errors.hpp"
#include "heatmap_svg.hpp"

using namespace simhash;

namespace {

std::size_t occurrences(const std::string &s, const std::string &what)
{
    std::size_t n = 0;
    for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST(HeatmapSvg, ColourScaleRunsFromVioletToRed)
{
    EXPECT_EQ(heatmap_colour(0.0), "#ff00ff");
    EXPECT_EQ(heatmap_colour(1.0), "#ff0000");
    EXPECT_EQ(heatmap_colour(0.5), "#00ff80");  // hue 150: green
    EXPECT_EQ(heatmap_colour(-1.0), "#ff00ff");
    EXPECT_EQ(heatmap_colour(2.0), "#ff0000");
}

TEST(HeatmapSvg, LogScaleSpreadsCountsThatLinearCrushes)
{
    EXPECT_DOUBLE_EQ(heatmap_scale_position(1, 1, 1000000, true), 0.0);
    EXPECT_DOUBLE_EQ(heatmap_scale_position(1000000, 1, 1000000, true), 1.0);
    EXPECT_NEAR(heatmap_scale_position(1000, 1, 1000000, true), 0.5, 1e-12);
    EXPECT_NEAR(heatmap_scale_position(1000, 1, 1000000, false), 0.000999, 1e-6);
    EXPECT_DOUBLE_EQ(heatmap_scale_position(7, 7, 7, true), 1.0);  // one count: all at the top
}

TEST(HeatmapSvg, DrawsEveryCellWithItsColourAndTheThresholdLines)
{
    const std::vector<HeatmapCell> cells = {{0, 0, 1000000}, {50, 30, 1}, {100, 60, 600}, {100, 60, 400}};
    const std::string svg = heatmap_svg(cells, HeatmapOptions{});
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
    EXPECT_EQ(occurrences(svg, "pairs</title></rect>"), 3u);  // the two (100, 60) cells are one
    EXPECT_NE(svg.find("fingerprint difference 0, simhash difference 0: 1000000 pairs"), std::string::npos);
    EXPECT_NE(svg.find("fill=\"#ff0000\"><title>fingerprint difference 0,"), std::string::npos);
    EXPECT_NE(svg.find("fill=\"#ff00ff\"><title>fingerprint difference 50,"), std::string::npos);
    EXPECT_NE(svg.find("fill=\"#00ff80\"><title>fingerprint difference 100,"), std::string::npos);
    // Threshold lines sit between columns 6 and 7 and between rows 5 and 6.
    const int line_x = kHeatmapLeftPx + 7 * kHeatmapCellPx;
    EXPECT_NE(svg.find("x1=\"" + std::to_string(line_x) + "\""), std::string::npos);
    EXPECT_NE(svg.find("fingerprints: duplicate if &lt;= 6"), std::string::npos);
    EXPECT_NE(svg.find("simhash: duplicate if &lt;= 5"), std::string::npos);
    EXPECT_NE(svg.find("logarithmic scale"), std::string::npos);
    EXPECT_EQ(occurrences(svg, "<text"), occurrences(svg, "</text>"));
}

TEST(HeatmapSvg, LinearScaleOnRequest)
{
    HeatmapOptions o;
    o.log_scale = false;
    const std::string svg = heatmap_svg({{0, 0, 1000000}, {100, 60, 1000}, {50, 30, 1}}, o);
    EXPECT_NE(svg.find("linear scale"), std::string::npos);
    // 1,000 of 1,000,000 pairs: at the violet end on a linear scale (green on the log scale).
    const std::string colour = heatmap_colour(heatmap_scale_position(1000, 1, 1000000, false));
    EXPECT_EQ(colour.substr(3, 2), "00");  // no green: magenta-violet
    EXPECT_NE(svg.find("fill=\"" + colour + "\"><title>fingerprint difference 100,"), std::string::npos);
}

TEST(HeatmapSvg, TitleIsEscapedAndBadInputRefused)
{
    HeatmapOptions o;
    o.title = "crawl <42> & \"friends\"\x01";
    const std::string svg = heatmap_svg({}, o);
    EXPECT_NE(svg.find("crawl &lt;42&gt; &amp; &quot;friends&quot;</text>"), std::string::npos);
    EXPECT_NE(svg.find("no pairs"), std::string::npos);
    EXPECT_THROW(heatmap_svg({{129, 0, 1}}, {}), InvalidArgument);
    EXPECT_THROW(heatmap_svg({{0, -1, 1}}, {}), InvalidArgument);
    o.sh_threshold = 65;
    EXPECT_THROW(heatmap_svg({}, o), InvalidArgument);
}

// A title past the limit is refused, not rendered into a document of any size.
TEST(HeatmapSvg, LongTitleRefused)
{
    HeatmapOptions o;
    o.title = std::string(kHeatmapMaxTitleBytes, 'x');
    EXPECT_NO_THROW(heatmap_svg({}, o));
    o.title += "x";
    EXPECT_THROW(heatmap_svg({}, o), InvalidArgument);
}

// Counts near 2^63 each: the total is printed as what it is (not wrapped to 0), and one cell whose
// repeated rows add up past 2^64 is refused.
TEST(HeatmapSvg, HugeCountsNeitherWrapNorOverflow)
{
    const uint64_t half = uint64_t(1) << 63;
    const std::string svg = heatmap_svg({{0, 0, half}, {1, 1, half}}, {});
    EXPECT_EQ(svg.find(">0 pairs"), std::string::npos);
    EXPECT_NE(svg.find("1.84e+10G pairs"), std::string::npos);
    EXPECT_THROW(heatmap_svg({{0, 0, half}, {0, 0, half}}, {}), LimitExceeded);
}
