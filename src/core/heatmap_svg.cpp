#include "heatmap_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core_errors.hpp"

namespace simhash {

namespace {

constexpr int kPlotWidth = (kHeatmapMaxX + 1) * kHeatmapCellPx;
constexpr int kPlotHeight = (kHeatmapMaxY + 1) * kHeatmapCellPx;
constexpr int kLegendX = kHeatmapLeftPx + kPlotWidth + 30;
constexpr int kLegendSteps = 64;

std::string xml_escape(const std::string &s)
{
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default:
            // Control characters are not allowed in XML 1.0 text.
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
        }
    }
    return out;
}

std::string format(const char *fmt, double a, double b = 0, double c = 0, double d = 0)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, a, b, c, d);
    return buf;
}

int cell_left(int x) { return kHeatmapLeftPx + x * kHeatmapCellPx; }
int cell_top(int y) { return kHeatmapTopPx + (kHeatmapMaxY - y) * kHeatmapCellPx; }

std::string count_label(double v)
{
    char buf[32];
    if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
    else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
    else if (v >= 1e4) std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

// The count at a scale position: the inverse of heatmap_scale_position, for legend labels.
double count_at(double position, uint64_t lo, uint64_t hi, bool log_scale)
{
    if (log_scale) return std::exp(std::log(double(lo)) + position * (std::log(double(hi)) - std::log(double(lo))));
    return double(lo) + position * double(hi - lo);
}

}  // namespace

double heatmap_scale_position(uint64_t count, uint64_t min_count, uint64_t max_count, bool log_scale)
{
    if (max_count <= min_count) return 1.0;
    if (log_scale)
        return (std::log(double(count)) - std::log(double(min_count))) /
               (std::log(double(max_count)) - std::log(double(min_count)));
    return double(count - min_count) / double(max_count - min_count);
}

std::string heatmap_colour(double position)
{
    position = std::clamp(position, 0.0, 1.0);
    const double hue = 300.0 * (1.0 - position);  // HSV with full saturation and value
    const double h = hue / 60.0;
    const double x = 1.0 - std::fabs(std::fmod(h, 2.0) - 1.0);
    double r = 0, g = 0, b = 0;
    switch (int(h) % 6) {
    case 0: r = 1; g = x; break;
    case 1: r = x; g = 1; break;
    case 2: g = 1; b = x; break;
    case 3: g = x; b = 1; break;
    case 4: r = x; b = 1; break;
    default: r = 1; b = x; break;
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(std::lround(r * 255)), int(std::lround(g * 255)),
                  int(std::lround(b * 255)));
    return buf;
}

std::string heatmap_svg(const std::vector<HeatmapCell> &cells, const HeatmapOptions &o)
{
    if (o.fp_threshold < 0 || o.fp_threshold > kHeatmapMaxX)
        throw InvalidArgument("the fingerprint threshold must be between 0 and 128, got " + std::to_string(o.fp_threshold));
    if (o.sh_threshold < 0 || o.sh_threshold > kHeatmapMaxY)
        throw InvalidArgument("the simhash threshold must be between 0 and 64, got " + std::to_string(o.sh_threshold));
    if (o.title.size() > kHeatmapMaxTitleBytes)
        throw InvalidArgument("the title is " + std::to_string(o.title.size()) + " bytes long; a heat map's title has at most " +
                              std::to_string(kHeatmapMaxTitleBytes));
    std::map<std::pair<int, int>, uint64_t> counts;
    for (const auto &c : cells) {
        if (c.x < 0 || c.x > kHeatmapMaxX || c.y < 0 || c.y > kHeatmapMaxY)
            throw InvalidArgument("a cell (" + std::to_string(c.x) + ", " + std::to_string(c.y) +
                                  ") is outside the axes: fingerprint difference 0..128, simhash difference 0..64");
        if (c.count > 0 && __builtin_add_overflow(counts[{c.x, c.y}], c.count, &counts[{c.x, c.y}]))
            throw LimitExceeded("the pairs of cell (" + std::to_string(c.x) + ", " + std::to_string(c.y) +
                                ") add up to more than 2^64");
    }
    // The total is only printed, as a rounded count: a double holds any sum of 64-bit counts here.
    uint64_t lo = UINT64_MAX, hi = 0;
    double total = 0;
    for (const auto &kv : counts) {
        lo = std::min(lo, kv.second);
        hi = std::max(hi, kv.second);
        total += double(kv.second);
    }

    std::string s;
    s += format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\">\n",
                kHeatmapWidthPx, kHeatmapHeightPx, kHeatmapWidthPx, kHeatmapHeightPx);
    s += "<title>" + xml_escape(o.title) + "</title>\n";
    s += format("<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", kHeatmapWidthPx, kHeatmapHeightPx);
    s += format("<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", kHeatmapLeftPx) +
         xml_escape(o.title) + "</text>\n";
    s += format("<text x=\"%.0f\" y=\"38\" fill=\"#555555\">", kHeatmapLeftPx) +
         xml_escape(count_label(total) + " pairs in " + std::to_string(counts.size()) + " cells; colour: " +
                    (o.log_scale ? "logarithmic" : "linear") + " scale of pairs per cell") +
         "</text>\n";
    s += format("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\" stroke=\"#999999\"/>\n",
                kHeatmapLeftPx, kHeatmapTopPx, kPlotWidth, kPlotHeight);

    s += "<g shape-rendering=\"crispEdges\">\n";
    for (const auto &kv : counts) {
        const double pos = heatmap_scale_position(kv.second, lo, hi, o.log_scale);
        s += format("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" ", cell_left(kv.first.first),
                    cell_top(kv.first.second), kHeatmapCellPx, kHeatmapCellPx) +
             "fill=\"" + heatmap_colour(pos) + "\"><title>" +
             format("fingerprint difference %.0f, simhash difference %.0f: %.0f pairs", kv.first.first,
                    kv.first.second, double(kv.second)) +
             "</title></rect>\n";
    }
    s += "</g>\n";

    // Axes: ticks every 8, labels every 16 (x) and 8 (y).
    const int bottom = kHeatmapTopPx + kPlotHeight;
    for (int x = 0; x <= kHeatmapMaxX; x += 8) {
        const double cx = cell_left(x) + kHeatmapCellPx / 2.0;
        s += format("<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#333333\"/>\n", cx, bottom, cx,
                    bottom + 5);
        if (x % 16 == 0)
            s += format("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>\n", cx, bottom + 17, x);
    }
    for (int y = 0; y <= kHeatmapMaxY; y += 8) {
        const double cy = cell_top(y) + kHeatmapCellPx / 2.0;
        s += format("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", kHeatmapLeftPx - 5,
                    cy, kHeatmapLeftPx, cy);
        s += format("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", kHeatmapLeftPx - 8, cy + 4, y);
    }
    s += format("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">fingerprint difference (of 128)</text>\n",
                kHeatmapLeftPx + kPlotWidth / 2.0, bottom + 34);
    s += format("<text transform=\"translate(%.0f %.1f) rotate(-90)\" text-anchor=\"middle\">simhash difference "
                "(bits of 64)</text>\n",
                kHeatmapLeftPx - 40, kHeatmapTopPx + kPlotHeight / 2.0);

    // Threshold lines between the duplicate and the different side, and the quadrant labels.
    const int line_x = cell_left(o.fp_threshold + 1), line_y = cell_top(o.sh_threshold);
    s += format("<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000000\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"5 3\"/>\n",
                line_x, kHeatmapTopPx, line_x, bottom);
    s += format("<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000000\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"5 3\"/>\n",
                kHeatmapLeftPx, line_y, kHeatmapLeftPx + kPlotWidth, line_y);
    s += format("<text x=\"%.0f\" y=\"%.0f\" fill=\"#000000\">", line_x + 4, kHeatmapTopPx + 14) +
         xml_escape("fingerprints: duplicate if <= " + std::to_string(o.fp_threshold)) + "</text>\n";
    s += format("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#000000\">", kHeatmapLeftPx + kPlotWidth - 4,
                line_y - 4) +
         xml_escape("simhash: duplicate if <= " + std::to_string(o.sh_threshold)) + "</text>\n";
    const auto quadrant = [&](double x, double y, const char *anchor, const std::string &text) {
        s += format("<text x=\"%.0f\" y=\"%.0f\" font-style=\"italic\" fill=\"#333333\" ", x, y) + "text-anchor=\"" +
             anchor + "\">" + xml_escape(text) + "</text>\n";
    };
    quadrant(kHeatmapLeftPx + kPlotWidth - 4, bottom - 6, "end", "simhash only (fingerprints say different)");
    quadrant(line_x + 4, kHeatmapTopPx + 30, "start", "neither: different pages");
    s += format("<text transform=\"translate(%.0f %.0f) rotate(-90)\" font-style=\"italic\" fill=\"#333333\" "
                "text-anchor=\"middle\">fingerprints only</text>\n",
                kHeatmapLeftPx + 14, (kHeatmapTopPx + line_y) / 2.0);
    quadrant(kHeatmapLeftPx + 4, bottom + 46, "start", "both say duplicate: bottom-left corner");

    // Legend: the colour bar from the fewest (bottom) to the most (top) pairs per cell, with counts.
    const int bar_w = 18, bar_h = kPlotHeight;
    s += format("<text x=\"%.0f\" y=\"%.0f\">pairs per cell</text>\n", kLegendX, kHeatmapTopPx - 14);
    for (int i = 0; i < kLegendSteps; ++i) {
        const double pos = (i + 0.5) / kLegendSteps;
        const double top = kHeatmapTopPx + bar_h * (1.0 - double(i + 1) / kLegendSteps);
        s += format("<rect x=\"%.0f\" y=\"%.2f\" width=\"%.0f\" height=\"%.2f\" ", kLegendX, top, bar_w,
                    bar_h / double(kLegendSteps) + 0.5) +
             "fill=\"" + heatmap_colour(pos) + "\"/>\n";
    }
    s += format("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999999\"/>\n",
                kLegendX, kHeatmapTopPx, bar_w, bar_h);
    if (!counts.empty()) {
        for (int i = 0; i <= 4; ++i) {
            const double pos = i / 4.0;
            const double y = kHeatmapTopPx + bar_h * (1.0 - pos);
            s += format("<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
                        kLegendX + bar_w, y, kLegendX + bar_w + 4, y);
            s += format("<text x=\"%.0f\" y=\"%.1f\">", kLegendX + bar_w + 7, y + 4) +
                 count_label(std::round(count_at(pos, lo, hi, o.log_scale))) + "</text>\n";
        }
    } else {
        s += format("<text x=\"%.0f\" y=\"%.0f\">no pairs</text>\n", kHeatmapLeftPx + 10, kHeatmapTopPx + 60);
    }
    s += "</svg>\n";
    return s;
}

}  // namespace simhash
