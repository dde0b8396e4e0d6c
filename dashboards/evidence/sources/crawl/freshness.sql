-- What each part of the report covers and when it was made: the duplicates as of the last
-- CALL crawl_report.refresh(), with the changes the crawl's clusters have not taken in yet (backlog)
-- and the age of the oldest (simhash_dedup_status); the threshold analysis as of its last refresh.
SELECT f.part, f.how, f.refreshed_at, f.pages, f.seconds, f.changes,
       s.backlog, s.lag_seconds, s.last_run
FROM crawl_report.freshness f
LEFT JOIN crawl_report.dedup_status() s ON f.part = 'duplicates'
ORDER BY f.part
