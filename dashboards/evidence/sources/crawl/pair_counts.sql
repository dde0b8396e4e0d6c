-- Near-duplicate pairs by Hamming distance (0 = the same simhash).
SELECT distance, pairs FROM crawl_report.pair_counts ORDER BY distance
