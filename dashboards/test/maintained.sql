-- The trigger keeps the duplicate tables as crawl_report.rebuild() makes them: pages arrive one by
-- one and several in one statement (exact copies, near copies, pages that merge two clusters, pages
-- far from everything), then what the trigger kept is compared with a rebuild from scratch.
-- Run after dashboards/sql/report_tables.sql and crawl_report.rebuild() on a crawl with clusters.
\set ON_ERROR_STOP on
SELECT extnamespace::regnamespace AS ext FROM pg_extension WHERE extname = 'simhash' \gset
SET search_path = pg_catalog, :"ext", pg_temp;
\set QUIET on
BEGIN;
-- The representatives of the two largest clusters.
CREATE TEMP TABLE reps AS
SELECT p.id, p.sh, p.package, p.url FROM crawl_report.clusters c JOIN public.pages p ON p.id = c.representative
ORDER BY c.size DESC, c.cluster_id LIMIT 2;
-- A crawler stores pages with no right on crawl_report: the trigger runs as the report's owner.
CREATE ROLE report_test_crawler;
GRANT INSERT ON public.pages TO report_test_crawler;
GRANT SELECT ON reps TO report_test_crawler;
SET ROLE report_test_crawler;
-- one at a time: an exact copy, a 2-bit copy, a far page
INSERT INTO public.pages (package, url, html, sh)
SELECT package, url || '#copy', '', sh FROM reps ORDER BY id LIMIT 1;
INSERT INTO public.pages (package, url, html, sh)
SELECT package, url || '#near', '', (sh::bigint # 5)::simhash FROM reps ORDER BY id LIMIT 1;
INSERT INTO public.pages (package, url, html, sh) VALUES ('new-site', 'deb://new-site/far.html', '', (-1)::bigint::simhash);
RESET ROLE;
-- in one statement: a copy of every page of a small cluster, each with two bits flipped, and two
-- exact copies of one page
INSERT INTO public.pages (package, url, html, sh)
SELECT p.package, p.url || '#batch', '', (p.sh::bigint # 40960)::simhash
FROM crawl_report.dup_pages d JOIN public.pages p ON p.id = d.id
WHERE d.cluster_id = (SELECT cluster_id FROM crawl_report.clusters ORDER BY size, cluster_id LIMIT 1)
UNION ALL
SELECT package, url || '#twin' || g, '', sh FROM reps, generate_series(1, 2) g WHERE id = (SELECT max(id) FROM reps);
-- two clusters of a new site 8 bits apart, then a page 4 bits from each that merges them
INSERT INTO public.pages (package, url, html, sh)
SELECT 'merge-site', 'deb://merge-site/' || v, '', (6148914691236517205 # v)::simhash
FROM unnest(ARRAY[0, 15, 65280, 65280 + 983040]) v;
INSERT INTO public.pages (package, url, html, sh) VALUES ('merge-site', 'deb://merge-site/between', '', (6148914691236517205 # 3840)::simhash);
-- a page set later (as the demo hashes pages after loading them)
INSERT INTO public.pages (package, url, html) SELECT package, url || '#later', '' FROM reps ORDER BY id LIMIT 1;
UPDATE public.pages SET sh = (SELECT sh FROM reps ORDER BY id LIMIT 1) WHERE url LIKE '%#later';

CREATE TEMP TABLE kept_pairs AS SELECT * FROM crawl_report.near_pairs;
CREATE TEMP TABLE kept_counts AS SELECT * FROM crawl_report.pair_counts;
CREATE TEMP TABLE kept_groups AS SELECT * FROM crawl_report.exact_groups;
CREATE TEMP TABLE kept_stats AS SELECT * FROM crawl_report.package_stats;
-- clusters compared as partitions: each page with its cluster's representative and size
CREATE TEMP TABLE kept_members AS
SELECT d.id, d.package, d.exact, c.representative, c.size FROM crawl_report.dup_pages d JOIN crawl_report.clusters c USING (cluster_id);
SELECT sum(pages) AS pages_kept FROM kept_stats \gset
SELECT crawl_report.rebuild() AS pages_rebuilt \gset
CREATE TEMP TABLE differences AS
SELECT 'pages' AS what, abs(:pages_kept - :pages_rebuilt) AS differences
UNION ALL
SELECT 'pairs', count(*) FROM ((TABLE kept_pairs EXCEPT TABLE crawl_report.near_pairs) UNION ALL (TABLE crawl_report.near_pairs EXCEPT TABLE kept_pairs)) x
UNION ALL
SELECT 'pair counts', count(*) FROM ((TABLE kept_counts EXCEPT TABLE crawl_report.pair_counts) UNION ALL (TABLE crawl_report.pair_counts EXCEPT TABLE kept_counts)) x
UNION ALL
SELECT 'exact groups', count(*) FROM ((TABLE kept_groups EXCEPT TABLE crawl_report.exact_groups) UNION ALL (TABLE crawl_report.exact_groups EXCEPT TABLE kept_groups)) x
UNION ALL
SELECT 'package counts', count(*) FROM ((TABLE kept_stats EXCEPT TABLE crawl_report.package_stats) UNION ALL (TABLE crawl_report.package_stats EXCEPT TABLE kept_stats)) x
UNION ALL
SELECT 'cluster members', count(*) FROM (
    (TABLE kept_members EXCEPT SELECT d.id, d.package, d.exact, c.representative, c.size FROM crawl_report.dup_pages d JOIN crawl_report.clusters c USING (cluster_id))
    UNION ALL
    (SELECT d.id, d.package, d.exact, c.representative, c.size FROM crawl_report.dup_pages d JOIN crawl_report.clusters c USING (cluster_id) EXCEPT TABLE kept_members)) x;
-- The two new clusters of merge-site became one of 5 pages; nothing differs from the rebuild.
SELECT (SELECT sum(differences) FROM differences) = 0
       AND (SELECT size FROM kept_members WHERE package = 'merge-site' LIMIT 1) = 5 AS agree \gset
\if :agree
\echo 'the tables kept by the trigger equal a rebuild'
\else
SELECT * FROM differences;
DO $$ BEGIN RAISE EXCEPTION 'the tables kept by the trigger differ from a rebuild'; END $$;
\endif
ROLLBACK;

-- A deleted page cannot be taken out of its cluster: the report says it is stale, until a rebuild.
BEGIN;
DELETE FROM public.pages WHERE id = (SELECT min(id) FROM crawl_report.dup_pages);
SELECT stale_since IS NOT NULL AS stale_after_delete FROM crawl_report.freshness WHERE part = 'duplicates' \gset
SELECT crawl_report.rebuild() AS pages_rebuilt \gset
SELECT NOT EXISTS (SELECT FROM crawl_report.freshness WHERE part = 'duplicates' AND stale_since IS NOT NULL)
    AS fresh_after_rebuild \gset
\if :stale_after_delete
\else
DO $$ BEGIN RAISE EXCEPTION 'a deleted page did not mark the report stale'; END $$;
\endif
\if :fresh_after_rebuild
\echo 'a deleted page marks the report stale until a rebuild'
\else
DO $$ BEGIN RAISE EXCEPTION 'a rebuild did not clear the stale mark'; END $$;
\endif
ROLLBACK;
