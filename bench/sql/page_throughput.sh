#!/usr/bin/env bash
# End-to-end throughput of the page functions in SQL, on one core: simhash(text), simhash_html(html)
# and fingerprints(text) over a table of real pages, in MiB of input per second, plus the
# fingerprints/simhash time ratio.
#
#   bench/sql/page_throughput.sh PAGES.tsv [RUNS]
#
# PAGES.tsv: url<TAB>html<TAB>text in COPY text format (the corpus builder's pages.tsv). Connects
# with the usual PG* environment variables to a database where the extension can be created; the
# table it loads (simhash_bench_pages) is dropped at the end. Each figure is the best of RUNS
# (default 3) sequential scans with parallel workers off, after one warm-up scan that brings the
# table into shared buffers. "scan" is the cost of reading and detoasting the column alone.
set -euo pipefail

pages=${1:?usage: page_throughput.sh PAGES.tsv [RUNS]}
runs=${2:-3}
[ -r "$pages" ] || { echo "page_throughput.sh: cannot read $pages" >&2; exit 1; }

psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql_q <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS simhash_bench_pages;
CREATE TABLE simhash_bench_pages (url text, html text, text text);
\copy simhash_bench_pages (url, html, text) FROM '$pages'
VACUUM ANALYZE simhash_bench_pages;
SQL
trap 'psql_q -c "DROP TABLE IF EXISTS simhash_bench_pages" >/dev/null 2>&1 || true' EXIT

# Seconds of the best of $runs runs of: SELECT count(<expr>) FROM simhash_bench_pages.
best_seconds() {
    psql_q -At <<SQL
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT count($1) FROM simhash_bench_pages;
DO \$\$
DECLARE
    t0 timestamptz;
    best double precision := 'infinity';
BEGIN
    FOR i IN 1..$runs LOOP
        t0 := clock_timestamp();
        PERFORM count($1) FROM simhash_bench_pages;
        best := least(best, extract(epoch FROM clock_timestamp() - t0));
    END LOOP;
    PERFORM set_config('simhash_bench.best', best::text, false);
END
\$\$;
SELECT current_setting('simhash_bench.best');
SQL
}

schema=$(psql_q -At -c "SELECT quote_ident(extnamespace::regnamespace::text) FROM pg_extension WHERE extname = 'simhash'")
read -r npages text_bytes html_bytes < <(psql_q -At -F ' ' -c \
    "SELECT count(*), sum(octet_length(text)), sum(octet_length(html)) FROM simhash_bench_pages")

measure() {  # label, expression, bytes
    local s
    s=$(best_seconds "$2" | tail -n 1)
    printf '%-28s %8.3f s %9.1f MiB/s\n' "$1" "$s" "$(echo "$3 / 1048576 / $s" | bc -l)" >&2
    echo "$s"
}

echo "pages: $npages, text: $((text_bytes / 1048576)) MiB, html: $((html_bytes / 1048576)) MiB; best of $runs runs, one core" >&2
measure "scan text (length)" "length(text)" "$text_bytes" >/dev/null
measure "scan html (length)" "length(html)" "$html_bytes" >/dev/null
simhash_s=$(measure "simhash(text)" "$schema.simhash(text)" "$text_bytes")
measure "simhash_html(html)" "$schema.simhash_html(html)" "$html_bytes" >/dev/null
measure "html_text(html)" "$schema.html_text(html)" "$html_bytes" >/dev/null
fingerprints_s=$(measure "fingerprints(text)" "$schema.fingerprints(text)" "$text_bytes")
printf 'fingerprints/simhash time ratio: %.2f\n' "$(echo "$fingerprints_s / $simhash_s" | bc -l)" >&2
