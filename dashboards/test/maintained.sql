-- The report follows the crawl: pages arrive one by one and several in one statement (exact copies,
-- near copies, pages that merge two clusters, pages far from everything, a page hashed after it was
-- stored), pages are deleted, hashes and sites change; after each CALL crawl_report.refresh() what
-- the dashboard shows must equal simhash_clusters and simhash_pairs over the same rows (compare.sql).
-- Then the clusters are applied by another hand (simhash_dedup_run), and last every change is
-- undone. Run as the owner of the demo's crawl table public.pages (id, package, url, html, sh), after
-- dashboards/setup.sh. It leaves the crawl as it found it.
\set ON_ERROR_STOP on
\set QUIET on
SET client_min_messages = warning;
-- Waits until the clusters took in every queued change (applied here, or by the extension's
-- background worker if it runs), so that the report can be compared with the crawl as it is.
\set catch_up 'DO $$ BEGIN FOR i IN 1 .. 600 LOOP PERFORM simhash_dedup_run(); EXIT WHEN NOT EXISTS (SELECT FROM simhash_dedup_queue q, crawl_report.settings s WHERE q.tbl = s.tbl); PERFORM pg_sleep(0.05); END LOOP; END $$'
\set label 'after the setup'
\ir compare.sql
-- The canonical pages of the two largest clusters, and what the test changes.
DROP TABLE IF EXISTS report_test_reps, report_test_small, report_test_saved;
CREATE TABLE report_test_reps AS
SELECT p.id, p.sh, p.package, p.url FROM crawl_report.clusters c JOIN public.pages p ON p.id = c.canonical
ORDER BY c.size DESC, c.cluster_id LIMIT 2;
CREATE TABLE report_test_small AS
SELECT d.id FROM crawl_report.dup_pages d
WHERE d.cluster_id = (SELECT cluster_id FROM crawl_report.clusters ORDER BY size, cluster_id LIMIT 1);
-- a page of a cluster to delete, one to move far away, one to move to another site
CREATE TABLE report_test_saved AS
SELECT 'delete' AS what, p.* FROM public.pages p WHERE p.id = (SELECT min(id) FROM crawl_report.dup_pages)
UNION ALL
SELECT 'rehash', p.* FROM public.pages p WHERE p.id = (SELECT max(id) FROM crawl_report.dup_pages)
UNION ALL
SELECT 'move', p.* FROM public.pages p
WHERE p.id = (SELECT max(id) FROM crawl_report.dup_pages WHERE id < (SELECT max(id) FROM crawl_report.dup_pages));

-- A crawler stores pages with no right on crawl_report: the triggers run as the report's owner.
SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = 'report_test_crawler') AS crawler_left \gset
\if :crawler_left
DROP OWNED BY report_test_crawler;
DROP ROLE report_test_crawler;
\endif
CREATE ROLE report_test_crawler;
GRANT INSERT, UPDATE, DELETE ON public.pages TO report_test_crawler;
GRANT SELECT ON public.pages, report_test_reps, report_test_small, report_test_saved TO report_test_crawler;
SET ROLE report_test_crawler;
-- one at a time: an exact copy, a 2-bit copy, a far page
INSERT INTO public.pages (package, url, html, sh)
SELECT package, url || '#copy', '', sh FROM report_test_reps ORDER BY id LIMIT 1;
INSERT INTO public.pages (package, url, html, sh)
SELECT package, url || '#near', '', (sh::bigint # 5)::simhash FROM report_test_reps ORDER BY id LIMIT 1;
INSERT INTO public.pages (package, url, html, sh) VALUES ('new-site', 'deb://new-site/far.html', '', (-1)::bigint::simhash);
-- in one statement: a 2-bit copy of every page of the smallest cluster, and two exact copies of one page
INSERT INTO public.pages (package, url, html, sh)
SELECT p.package, p.url || '#batch', '', (p.sh::bigint # 40960)::simhash
FROM public.pages p WHERE p.id IN (SELECT id FROM report_test_small)
UNION ALL
SELECT package, url || '#twin' || g, '', sh FROM report_test_reps, generate_series(1, 2) g
WHERE id = (SELECT max(id) FROM report_test_reps);
-- two clusters of a new site 8 bits apart, then a page 4 bits from each that merges them
INSERT INTO public.pages (package, url, html, sh)
SELECT 'merge-site', 'deb://merge-site/' || v, '', (6148914691236517205 # v)::simhash
FROM unnest(ARRAY[0, 15, 65280, 65280 + 983040]) v;
INSERT INTO public.pages (package, url, html, sh) VALUES ('merge-site', 'deb://merge-site/between', '', (6148914691236517205 # 3840)::simhash);
-- a page hashed after it was stored (as the demo hashes its pages)
INSERT INTO public.pages (package, url, html) SELECT package, url || '#later', '' FROM report_test_reps ORDER BY id LIMIT 1;
UPDATE public.pages SET sh = (SELECT sh FROM report_test_reps ORDER BY id LIMIT 1) WHERE url LIKE '%#later';
-- a page of a cluster deleted, one rehashed far from everything, one moved to another site
DELETE FROM public.pages WHERE id = (SELECT id FROM report_test_saved WHERE what = 'delete');
UPDATE public.pages SET sh = (6148914691236517205 # -1)::simhash WHERE id = (SELECT id FROM report_test_saved WHERE what = 'rehash');
UPDATE public.pages SET package = 'moved-site' WHERE id = (SELECT id FROM report_test_saved WHERE what = 'move');
RESET ROLE;

:catch_up;
CALL crawl_report.refresh() \gset
SELECT last_mode = 'incremental' AS incremental FROM crawl_report.state \gset
\if :incremental
\else
DO $$ BEGIN RAISE EXCEPTION 'the refresh after the changes read every cluster again'; END $$;
\endif
\set label 'after inserts, a delete, hash and site updates (incremental)'
\ir compare.sql

-- Changes applied by another hand (a scheduler's simhash_dedup_run, the extension's background
-- worker): the refresh takes in what the clusters took in, and what they have not is left for later.
INSERT INTO public.pages (package, url, html, sh)
SELECT package, url || '#other-hand', '', sh FROM report_test_reps ORDER BY id LIMIT 1;
:catch_up;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT crawl_report.refresh_step() AS taken \gset
COMMIT;
SELECT last_mode = 'incremental' AND :taken = 1 AS incremental FROM crawl_report.state \gset
\if :incremental
\else
DO $$ BEGIN RAISE EXCEPTION 'the refresh did not take in the change applied by another session'; END $$;
\endif
\set label 'after simhash_dedup_run by another session'
\ir compare.sql

-- Every change undone: the deleted page back with its id, the hash and site back, the new pages gone.
DELETE FROM public.pages WHERE url LIKE '%#%' OR package IN ('new-site', 'merge-site');
INSERT INTO public.pages OVERRIDING SYSTEM VALUE
SELECT id, package, url, html, sh, fp, sk FROM report_test_saved WHERE what = 'delete';
UPDATE public.pages p SET sh = s.sh, package = s.package FROM report_test_saved s WHERE s.id = p.id AND s.what <> 'delete';
:catch_up;
CALL crawl_report.refresh() \gset
\set label 'after undoing every change'
\ir compare.sql

-- TRUNCATE, then every page back (with its id): the refresh reads every cluster again.
CREATE TEMP TABLE report_test_all AS SELECT * FROM public.pages;
TRUNCATE public.pages;
INSERT INTO public.pages OVERRIDING SYSTEM VALUE SELECT * FROM report_test_all;
:catch_up;
CALL crawl_report.refresh() \gset
\set label 'after TRUNCATE and every page back'
\ir compare.sql
DROP TABLE report_test_all, report_test_reps, report_test_small, report_test_saved;
DROP OWNED BY report_test_crawler;
DROP ROLE report_test_crawler;
