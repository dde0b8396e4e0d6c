#!/usr/bin/env bash
# Sets up the crawl report in the database that PGHOST/PGPORT/PGDATABASE/PGUSER name (the crawl
# table public.pages of demo/load_pages.sql and demo/report.sql): the result tables and their
# trigger and jobs (sql/report_tables.sql), their first fill, and the dashboard's read-only role
# (sql/bi_role.sql). Run it again to start over; afterwards the trigger keeps the duplicate tables
# current, and SELECT crawl_report.refresh_thresholds() refreshes the threshold analysis.
set -euo pipefail
cd "$(dirname "$0")"
psql -X -q -v ON_ERROR_STOP=1 -f sql/report_tables.sql
psql -X -q -v ON_ERROR_STOP=1 -f sql/bi_role.sql
psql -X -q -v ON_ERROR_STOP=1 -At -F ' ' <<'SQL'
\timing on
SELECT 'crawl_report.rebuild(): pages', crawl_report.rebuild();
SELECT 'crawl_report.refresh_thresholds(): pages', crawl_report.refresh_thresholds();
SQL
