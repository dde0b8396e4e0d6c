-- The dashboard's role reads every panel and can do nothing else: each statement below must fail
-- with insufficient_privilege (42501) or read_only_sql_transaction (25006). As a superuser, after
-- dashboards/setup.sh:  psql -f dashboards/test/bi_role.sql
\set ON_ERROR_STOP on
SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolbypassrls AS too_strong FROM pg_roles WHERE rolname = 'crawl_bi' \gset
\if :too_strong
DO $$ BEGIN RAISE EXCEPTION 'crawl_bi has more than read rights'; END $$;
\endif
-- Logged in as the role (not SET ROLE), so that its own settings (read-only transactions) apply.
\connect - crawl_bi
SET search_path = crawl_report;
SELECT count(*) AS clusters_readable FROM crawl_report.clusters \gset
\set ON_ERROR_STOP off
\set QUIET on
\set denied 0
-- each: a statement, then whether it failed as it must (:ERROR says the last statement failed)
INSERT INTO crawl_report.clusters VALUES (-1, 1, -1);
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
UPDATE public.pages SET url = url WHERE id = -1;
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
SELECT html FROM public.pages LIMIT 1;
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
SELECT crawl_report.rebuild();
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
SELECT crawl_report.refresh_thresholds();
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' = '42501')::int AS denied \gset
CREATE TABLE crawl_report.planted (x int);
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
CREATE TEMP TABLE planted (x int);
SELECT :denied + (:ERROR AND :'LAST_ERROR_SQLSTATE' IN ('42501', '25006'))::int AS denied \gset
\set ON_ERROR_STOP on
SELECT :denied = 7 AS all_denied \gset
\if :all_denied
\echo 'crawl_bi reads the report (' :clusters_readable 'clusters) and cannot write, read the HTML, run the jobs or create anything'
\else
\echo 'only' :denied 'of the 7 statements were denied'
DO $$ BEGIN RAISE EXCEPTION 'crawl_bi can do more than read'; END $$;
\endif
