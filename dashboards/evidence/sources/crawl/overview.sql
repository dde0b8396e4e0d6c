-- The headline figures, one row kept by CALL crawl_report.refresh() (no scan of the crawl).
SELECT t.pages, t.exact_groups, t.pages_in_exact_groups, t.near_pairs, t.clusters, t.pages_in_clusters,
       t.uncounted_clusters, s.max_pair_hashes, s.k
FROM crawl_report.totals t CROSS JOIN crawl_report.settings s
