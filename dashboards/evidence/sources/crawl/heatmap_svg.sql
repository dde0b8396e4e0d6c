-- The extension's own rendering of the same histogram (simhash_heatmap_svg, log colour scale).
SELECT svg FROM crawl_report.heatmap_svg WHERE scale = 'log'
