-- The heat map's cells: sampled pairs per (fingerprint difference, simhash difference), with the
-- thresholds the lines are drawn at.
SELECT h.fp_diff, h.sh_diff, h.pairs, s.d, s.k
FROM crawl_report.joint_histogram h CROSS JOIN crawl_report.settings s
ORDER BY h.fp_diff, h.sh_diff
