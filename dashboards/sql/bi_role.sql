-- The dashboard's read-only role: it reads the report's tables, the pages' id, site and URL through
-- the report's view, and the duplicate state's freshness, and nothing else; no superuser, no write,
-- no right on the crawl table itself (not its HTML), no job of the report.
--   psql -v ON_ERROR_STOP=1 [-v bi_role=crawl_bi] -f dashboards/sql/bi_role.sql
-- The role logs in without a password here (the demo's server trusts local connections); on a
-- shared server give it one: ALTER ROLE crawl_bi PASSWORD '...'.
\set ON_ERROR_STOP on
\if :{?bi_role}
\else
\set bi_role crawl_bi
\endif
SELECT NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'bi_role') AS create_role \gset
\if :create_role
CREATE ROLE :"bi_role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
\endif
-- Every query it runs reads only: a panel can never write, whatever SQL it holds.
ALTER ROLE :"bi_role" SET default_transaction_read_only = on;
GRANT USAGE ON SCHEMA crawl_report TO :"bi_role";
GRANT SELECT ON ALL TABLES IN SCHEMA crawl_report TO :"bi_role";
-- Of the crawl only what the panels show (the view reads the table with its owner's rights).
REVOKE SELECT ON crawl_report.crawl FROM :"bi_role";
GRANT SELECT (id, site, url) ON crawl_report.crawl TO :"bi_role";
-- The backlog and lag of the clusters (simhash_dedup_status, which the role could not call itself).
GRANT EXECUTE ON FUNCTION crawl_report.dedup_status() TO :"bi_role";
