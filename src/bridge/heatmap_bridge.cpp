#include "heatmap_bridge.h"

#include <string>
#include <vector>

#include "bridge_guard.hpp"
#include "heatmap_svg.hpp"

struct sh_svg {
    std::string text;
};

using simhash::guarded;

extern "C" sh_status sh_heatmap_svg(const int64_t *x, const int64_t *y, const int64_t *pairs, size_t n,
                                    const sh_heatmap_options *o, sh_svg **svg, sh_error *err) noexcept
{
    *svg = nullptr;
    return guarded(err, [&] {
        std::vector<simhash::HeatmapCell> cells;
        cells.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            // Out-of-range coordinates are clamped to -1 / 129 so the core reports them as outside.
            const auto coordinate = [](int64_t v) { return int(v < -1 ? -1 : (v > 129 ? 129 : v)); };
            if (pairs[i] < 0) throw simhash::InvalidArgument("pair counts must not be negative");
            cells.push_back({coordinate(x[i]), coordinate(y[i]), uint64_t(pairs[i])});
        }
        simhash::HeatmapOptions options;
        options.log_scale = o->log_scale != 0;
        options.fp_threshold = o->fp_threshold;
        options.sh_threshold = o->sh_threshold;
        options.title = o->title;
        *svg = new sh_svg{simhash::heatmap_svg(cells, options)};
    });
}

extern "C" const char *sh_svg_text(const sh_svg *svg, size_t *len) noexcept
{
    *len = svg->text.size();
    return svg->text.data();
}

extern "C" void sh_svg_free(sh_svg *svg) noexcept { delete svg; }
