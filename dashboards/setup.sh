#!/usr/bin/env bash
# Sets up the crawl report over a crawl table in the database that PGHOST/PGPORT/PGDATABASE/PGUSER
# name (as the table's owner): the duplicate clusters kept by the extension (simhash_dedup_start),
# the report's tables, view and statement-level triggers (sql/report_tables.sql), their first fill,
# the threshold analysis, and the dashboard's read-only role (sql/bi_role.sql).
#
#   dashboards/setup.sh [--table TABLE] [--id COLUMN] [--hash COLUMN] [--site COLUMN] [--url COLUMN]
#                       [--fingerprints COLUMN] [--k BITS] [--keep 'ORDER BY LIST'] [--no-thresholds]
#
# Defaults: the demo's table, public.pages (id, package, url, sh, fp): --table public.pages --id id
# --hash sh --site package --url url --fingerprints fp --k 5. An empty --site, --url or
# --fingerprints says the table has no such column (the panels that need it say so). --keep picks
# each cluster's canonical page (simhash_dedup_start's keep; default the smallest id).
# Run it again to start over: the table's clusters are started again with these settings. Afterwards
# let a scheduler run `CALL crawl_report.refresh()` every few seconds (dashboards/README.md).
set -euo pipefail
cd "$(dirname "$0")"
table=public.pages id=id hash=sh site=package url=url fp=fp k=5 keep= thresholds=1
while [ $# -gt 0 ]; do
    case "$1" in
        --table) table=$2; shift 2 ;;
        --id) id=$2; shift 2 ;;
        --hash) hash=$2; shift 2 ;;
        --site) site=$2; shift 2 ;;
        --url) url=$2; shift 2 ;;
        --fingerprints) fp=$2; shift 2 ;;
        --k) k=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --no-thresholds) thresholds=0; shift ;;
        *) sed -n '2,16p' "$0" >&2; exit 2 ;;
    esac
done
psql -X -q -v ON_ERROR_STOP=1 -v tbl="$table" -v id_column="$id" -v hash_column="$hash" -v site_column="$site" \
     -v url_column="$url" -v fp_column="$fp" -v k="$k" -f sql/report_tables.sql
psql -X -q -v ON_ERROR_STOP=1 -f sql/bi_role.sql
psql -X -q -v ON_ERROR_STOP=1 -At -F ' ' -v tbl="$table" -v id_column="$id" -v hash_column="$hash" -v k="$k" \
     -v keep="$keep" <<'SQL'
\timing on
-- The clusters, started again with these settings if the table's were kept already.
SELECT EXISTS (SELECT FROM simhash_dedup_tables WHERE tbl = :'tbl'::regclass) AS kept \gset
\if :kept
SELECT simhash_dedup_stop(:'tbl');
\endif
SELECT 'simhash_dedup_start(): clusters', simhash_dedup_start(:'tbl', :'id_column', :'hash_column', k => :'k',
                                                              keep => nullif(:'keep', ''));
-- The report's first fill (every cluster, and the pages per site).
CALL crawl_report.refresh();
SELECT 'crawl_report.refresh(): pages', pages, 'clusters', clusters, 'pairs', near_pairs FROM crawl_report.totals;
SQL
if [ "$thresholds" = 1 ]; then
    psql -X -q -v ON_ERROR_STOP=1 -At -F ' ' <<'SQL'
\timing on
SELECT 'crawl_report.refresh_thresholds(): pages', crawl_report.refresh_thresholds();
SQL
fi
