-- The dashboard's role reads every panel and can do nothing else: each statement below must fail
-- with insufficient_privilege (42501) or read_only_sql_transaction (25006). As a superuser, after
-- dashboards/setup.sh:  psql -f dashboards/test/bi_role.sql
\set ON_ERROR_STOP on
SELECT format('%I.%I', n.nspname, c.relname) AS crawl_table, e.extnamespace::regnamespace AS ext
FROM crawl_report.settings s JOIN pg_class c ON c.oid = s.tbl JOIN pg_namespace n ON n.oid = c.relnamespace,
     pg_extension e WHERE e.extname = 'simhash' \gset
SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolbypassrls AS too_strong FROM pg_roles WHERE rolname = 'crawl_bi' \gset
\if :too_strong
DO $$ BEGIN RAISE EXCEPTION 'crawl_bi has more than read rights'; END $$;
\endif
-- Logged in as the role (not SET ROLE), so that its own settings (read-only transactions) apply.
\connect - crawl_bi
SET search_path = crawl_report;
SELECT count(*) AS clusters_readable FROM crawl_report.clusters \gset
SELECT backlog IS NOT NULL AS status_readable FROM crawl_report.dedup_status() \gset
\set ON_ERROR_STOP off
\set QUIET on
\set denied 0
-- each: a statement, then whether it failed as it must (:ERROR says the last statement failed)
INSERT INTO crawl_report.clusters VALUES (-1, 1, -1);
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
UPDATE crawl_report.site_stats SET pages = 0;
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
-- the crawl table itself (its HTML), and the hashes through the report's view
SELECT * FROM :crawl_table LIMIT 1;
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
SELECT sh FROM crawl_report.crawl LIMIT 1;
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
-- the duplicate state of a table it may not read
SELECT * FROM :"ext".simhash_dedup_status(:'crawl_table');
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
CALL crawl_report.refresh();
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
SELECT crawl_report.refresh_thresholds();
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
CREATE TABLE crawl_report.planted (x int);
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
CREATE TEMP TABLE planted (x int);
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
\set ON_ERROR_STOP on
SELECT :denied = 9 AS all_denied \gset
\if :all_denied
\echo 'crawl_bi reads the report (' :clusters_readable 'clusters) and its freshness, and cannot write, read the crawl table or its hashes, run the jobs or create anything'
\else
\echo 'only' :denied 'of the 9 statements were denied'
DO $$ BEGIN RAISE EXCEPTION 'crawl_bi can do more than read'; END $$;
\endif
