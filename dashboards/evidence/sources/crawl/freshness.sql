-- What each part of the report covers and when it was made. The duplicate tables are kept current
-- by the trigger (so they cover every page now, unless marked stale), the threshold analysis was
-- made by its last refresh.
SELECT f.part, f.how,
       CASE WHEN f.part = 'duplicates' AND f.stale_since IS NULL THEN now() ELSE f.refreshed_at END AS refreshed_at,
       CASE WHEN f.part = 'duplicates' THEN (SELECT sum(s.pages)::bigint FROM crawl_report.package_stats s) ELSE f.pages END AS pages,
       f.seconds, f.stale_since IS NOT NULL AS stale
FROM crawl_report.freshness f ORDER BY f.part
