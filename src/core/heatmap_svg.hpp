// The threshold analysis heat map: a standalone SVG of pair counts over (fingerprint difference
// 0..128, simhash difference 0..64), coloured on a logarithmic (default) or linear scale.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace simhash {

struct HeatmapCell {
    int x;           // fingerprint difference, 0..128
    int y;           // simhash difference, 0..64
    uint64_t count;  // pairs in the cell, > 0
};

struct HeatmapOptions {
    bool log_scale = true;
    int fp_threshold = 6;  // the vertical line: duplicates by fingerprints are x <= fp_threshold
    int sh_threshold = 5;  // the horizontal line: duplicates by simhash are y <= sh_threshold
    std::string title = "Pairs of pages: fingerprint difference vs simhash difference";
};

constexpr int kHeatmapMaxX = 128, kHeatmapMaxY = 64;
// A title is a line of text above the plot; a longer one is refused rather than rendered.
constexpr std::size_t kHeatmapMaxTitleBytes = 1000;

// Geometry, exposed so a test can find a cell's pixels in a rendering.
constexpr int kHeatmapCellPx = 6, kHeatmapLeftPx = 70, kHeatmapTopPx = 50;
constexpr int kHeatmapWidthPx = kHeatmapLeftPx + (kHeatmapMaxX + 1) * kHeatmapCellPx + 170;
constexpr int kHeatmapHeightPx = kHeatmapTopPx + (kHeatmapMaxY + 1) * kHeatmapCellPx + 60;

// Position in the colour scale, 0 (the fewest pairs: violet) .. 1 (the most: red).
double heatmap_scale_position(uint64_t count, uint64_t min_count, uint64_t max_count, bool log_scale);
// "#rrggbb" for a scale position: hue from 300 degrees (magenta-violet) down to 0 (red).
std::string heatmap_colour(double position);

// Cells may come in any order; cells with the same (x, y) are added. Throws InvalidArgument for a
// cell outside the axes or thresholds outside them.
std::string heatmap_svg(const std::vector<HeatmapCell> &cells, const HeatmapOptions &options);

}  // namespace simhash
