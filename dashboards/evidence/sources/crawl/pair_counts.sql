-- Near-duplicate pairs by Hamming distance (0 = the same simhash), summed over the clusters.
SELECT distance, pairs FROM crawl_report.pair_counts ORDER BY distance
