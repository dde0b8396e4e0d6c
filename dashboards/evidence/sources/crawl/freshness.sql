-- What each part of the report covers and when it was made.
SELECT part, how, refreshed_at, pages, seconds, stale_since IS NOT NULL AS stale
FROM crawl_report.freshness ORDER BY part
