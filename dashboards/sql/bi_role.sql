-- The dashboard's read-only role: it reads the report's tables and the crawl pages' URLs, and
-- nothing else; no superuser, no write, no function of the report (its jobs stay the owner's).
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
GRANT USAGE ON SCHEMA crawl_report, public TO :"bi_role";
GRANT SELECT ON ALL TABLES IN SCHEMA crawl_report TO :"bi_role";
-- Of the crawl table only what the panels show: not the pages' HTML.
GRANT SELECT (id, package, url) ON public.pages TO :"bi_role";
