-- How many clusters have each size (pages linked by chains of pairs within k bits).
SELECT size, count(*) AS clusters, size * count(*) AS pages
FROM crawl_report.clusters GROUP BY size ORDER BY size
