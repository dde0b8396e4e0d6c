-- The headline figures, each read from a maintained table (no scan of the crawl).
SELECT (SELECT coalesce(sum(pages), 0)::bigint FROM crawl_report.package_stats) AS pages,
       (SELECT count(*) FROM crawl_report.exact_groups) AS exact_groups,
       (SELECT coalesce(sum(pages), 0)::bigint FROM crawl_report.exact_groups) AS pages_in_exact_groups,
       (SELECT coalesce(sum(pairs), 0)::bigint FROM crawl_report.pair_counts) AS near_pairs,
       (SELECT count(*) FROM crawl_report.clusters) AS clusters,
       (SELECT coalesce(sum(size), 0)::bigint FROM crawl_report.clusters) AS pages_in_clusters,
       (SELECT k FROM crawl_report.settings) AS k
