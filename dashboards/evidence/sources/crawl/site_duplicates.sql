-- Duplicates per site: hashed pages, pages with a near-duplicate and with an exact one.
SELECT site, pages, near_dup_pages, exact_dup_pages,
       near_dup_pages::float8 / nullif(pages, 0) AS near_dup_share
FROM crawl_report.site_stats
ORDER BY near_dup_pages DESC, site
LIMIT 50
