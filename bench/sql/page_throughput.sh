#!/usr/bin/env bash
# End-to-end throughput of the page functions in SQL, on one core: simhash(text) (default method and
# method 'charikar'), simhash_html(html), html_text(html), fingerprints(text) and fingerprints_html(html) over a table of real pages, in MiB
# of input per second, plus the fingerprints/simhash time ratios.
#
#   bench/sql/page_throughput.sh PAGES.tsv [RUNS]
#
# PAGES.tsv: url<TAB>html<TAB>text in COPY text format (the corpus builder's pages.tsv). Connects
# with the usual PG* environment variables to a database where the extension can be created; the
# table it loads (simhash_bench_pages) is dropped at the end.
#
# Each expression is timed as SELECT count(expr) over the whole table, sequential scan, parallel
# workers and JIT off, RUNS times (default 5) after one warm-up scan that brings the table into
# shared buffers. Nothing is subtracted: a figure includes reading and detoasting the column and the
# function-call overhead, as a user's query pays them. The "scan" rows time col || '' alone (read,
# detoast and copy each value; length() would also count characters, which costs more than the
# reading), for scale.
#
# Two clocks: wall time (clock_timestamp) and the backend's own CPU time (/proc/self/schedstat,
# read with pg_read_file, so it needs a superuser and Linux; otherwise only wall time is shown).
# On a shared machine the CPU time is the per-core figure; wall time is inflated by the other load.
# MiB/s is input bytes (octet_length: UTF-8 bytes of the text column for the text functions, of the
# html column for the HTML ones) over the best (minimum) time; the median is shown too.
set -euo pipefail

pages=${1:?usage: page_throughput.sh PAGES.tsv [RUNS]}
runs=${2:-5}
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

# Prints one line per run: "wall_seconds cpu_seconds" (cpu empty when unavailable).
run_times() {
    psql_q -At -F ' ' <<SQL
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT count($1) FROM simhash_bench_pages;
CREATE TEMP TABLE simhash_bench_runs (wall double precision, cpu double precision);
DO \$\$
DECLARE
    t0 timestamptz;
    c0 bigint;
    -- Nanoseconds this backend has run on a CPU, or NULL when /proc/self/schedstat is unreadable.
    cpu_ns text := \$q\$SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint\$q\$;
    has_cpu boolean := true;
BEGIN
    BEGIN
        EXECUTE cpu_ns INTO c0;
    EXCEPTION WHEN OTHERS THEN
        has_cpu := false;
    END;
    FOR i IN 1..$runs LOOP
        IF has_cpu THEN EXECUTE cpu_ns INTO c0; END IF;
        t0 := clock_timestamp();
        PERFORM count($1) FROM simhash_bench_pages;
        INSERT INTO simhash_bench_runs VALUES (
            extract(epoch FROM clock_timestamp() - t0),
            CASE WHEN has_cpu THEN
                ((SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint) - c0) / 1e9
            END);
    END LOOP;
END
\$\$;
SELECT wall, cpu FROM simhash_bench_runs;
SQL
}

schema=$(psql_q -At -c "SELECT quote_ident(extnamespace::regnamespace::text) FROM pg_extension WHERE extname = 'simhash'")
read -r npages text_bytes html_bytes < <(psql_q -At -F ' ' -c \
    "SELECT count(*), sum(octet_length(text)), sum(octet_length(html)) FROM simhash_bench_pages")

# best and median of a column of numbers on stdin ("- -" when empty).
best_median() { sort -g | awk 'NF { v[n++] = $1 } END { if (!n) print "- -"; else printf "%.4f %.4f\n", v[0], (n % 2 ? v[(n-1)/2] : (v[n/2-1] + v[n/2]) / 2) }'; }
mibs() { [ "$1" = - ] && echo - || printf '%.1f' "$(echo "$2 / 1048576 / $1" | bc -l)"; }

declare -A cpu_best wall_best
measure() {  # label, expression, bytes
    local times wb wm cb cm
    times=$(run_times "$2" | tail -n "$runs")
    read -r wb wm < <(awk '{ print $1 }' <<<"$times" | best_median)
    read -r cb cm < <(awk '{ print $2 }' <<<"$times" | best_median)
    wall_best[$1]=$wb
    cpu_best[$1]=$cb
    printf '| %-22s | %8s | %8s | %8s | %8s | %9s | %9s |\n' "$1" "$cb" "$cm" "$wb" "$wm" \
        "$(mibs "$cb" "$3")" "$(mibs "$wb" "$3")"
}
ratio() {  # numerator label, denominator label
    local c=- w
    [ "${cpu_best[$1]}" = - ] || c=$(printf '%.2f' "$(echo "${cpu_best[$1]} / ${cpu_best[$2]}" | bc -l)")
    w=$(printf '%.2f' "$(echo "${wall_best[$1]} / ${wall_best[$2]}" | bc -l)")
    echo "$1 / $2 time ratio: $c (CPU, best), $w (wall, best)"
}

echo "pages: $npages, text: $text_bytes bytes ($((text_bytes / 1048576)) MiB), html: $html_bytes bytes ($((html_bytes / 1048576)) MiB); $runs runs, one core; load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
echo "| expression             | CPU best | CPU med. | wall best| wall med.| MiB/s CPU | MiB/s wall|"
echo "|---|---|---|---|---|---|---|"
measure "scan text (col || '')" "text || ''" "$text_bytes"
measure "scan html (col || '')" "html || ''" "$html_bytes"
measure "simhash(text)" "$schema.simhash(text)" "$text_bytes"
measure "simhash(text) charikar" "$schema.simhash(text, method => 'charikar')" "$text_bytes"
measure "fingerprints(text)" "$schema.fingerprints(text)" "$text_bytes"
measure "html_text(html)" "$schema.html_text(html)" "$html_bytes"
measure "simhash_html(html)" "$schema.simhash_html(html)" "$html_bytes"
measure "fingerprints_html" "$schema.fingerprints_html(html)" "$html_bytes"
ratio "fingerprints(text)" "simhash(text)"
ratio "simhash(text)" "simhash(text) charikar"
ratio "fingerprints_html" "simhash_html(html)"
