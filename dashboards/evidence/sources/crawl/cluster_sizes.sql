-- How many clusters have each size (pages linked by chains of pairs within k bits), kept by delta.
SELECT size, clusters, size * clusters AS pages FROM crawl_report.cluster_sizes ORDER BY size
