-- Every pair of pages in the quadrants of the two thresholds (fingerprints <= d, simhash <= k).
SELECT quadrant, fingerprints_say, simhash_says, pairs,
       (SELECT d FROM crawl_report.settings) AS d, (SELECT k FROM crawl_report.settings) AS k
FROM crawl_report.quadrants ORDER BY ord
