#!/usr/bin/env bash
# What the runs of a simhash_mih index cost a query, without a writer's load: loads N rows of the
# workload (bench/gen/workload.cpp) and builds the index, then one session inserts M random hashes
# one statement at a time (each goes through the index's inserts, flushes and the small merges an
# inserter does; big merges go to the background workers the inserts start; autovacuum is off, so
# no VACUUM merges), and radius k = 3/5/8 and KNN-10 p50 over NQ queries are timed in the server
# with the runs that formed (once no merge is under way), and on a copy of the table
# whose index is built afresh (one run), the two interleaved. The ratio is what the runs cost.
#
#   bench/runs.sh N M            e.g. bench/runs.sh 1000000 2000000
#
# Environment: NQ=200, SEED=42, REPEAT=3 (each set's p50 is the lowest of REPEAT passes), INDEX_WITH.
# Starts its own throwaway server with the extension the pg_config on PATH installed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: bench/runs.sh N M}
M=${2:?usage: bench/runs.sh N M}
NQ=${NQ:-200}
SEED=${SEED:-42}
REPEAT=${REPEAT:-3}
INDEX_WITH=${INDEX_WITH:-}

. "$here/lib.sh"
start_server

sql -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_prewarm" \
    -c "CREATE TABLE crawl (id bigint PRIMARY KEY, sh simhash) WITH (autovacuum_enabled = off)"
load_workload "$N" "$SEED" "$NQ"
sql -c "CREATE INDEX crawl_mih ON crawl USING simhash_mih (sh) $INDEX_WITH" -c "VACUUM ANALYZE crawl"

log "inserting M=$M random hashes, 10,000 a statement"
sql -c "SELECT setseed(0.42)"
for ((at = 0; at < M; at += 10000)); do
    sql -c "INSERT INTO crawl SELECT $N + $at + i, ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
            FROM generate_series(1, LEAST(10000, $M - $at)) i"
done
# The runs as the inserts left them, once the big merge they handed to a background worker is done.
while [ "$(sql -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'")" != 0 ]; do
    sleep 1
done
sql -c "VACUUM (INDEX_CLEANUP off) crawl" -c "ANALYZE crawl"

sql <<'EOF'
CREATE FUNCTION time_set(p_sql text, OUT p50_ms float8) LANGUAGE plpgsql AS $$
DECLARE q record; t0 timestamptz; ms float8[] := '{}'; ids bigint[];
BEGIN
    FOR q IN SELECT h FROM queries ORDER BY qid LOOP
        t0 := clock_timestamp();
        EXECUTE 'SELECT array_agg(id) FROM (' || p_sql || ') s' INTO ids USING q.h;
        ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
    END LOOP;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO p50_ms FROM unnest(ms) x;
END $$;
CREATE TABLE timings (state text, query_set text, p50_ms float8);
EOF
# Each set's lowest p50 of REPEAT passes over both tables, interleaved: the machine's noise only adds.
time_all() {
    sql -c "SELECT pg_prewarm('crawl_mih'), pg_prewarm('crawl'), pg_prewarm('crawl_one_mih'), pg_prewarm('crawl_one')" >/dev/null
    for ((r = 0; r < REPEAT; r++)); do
        for tab in crawl crawl_one; do
            sql -c "INSERT INTO timings SELECT '$tab', 'radius_' || k, time_set('SELECT id FROM $tab WHERE hamming(sh, \$1) <= ' || k) FROM unnest(ARRAY[3, 5, 8]) k" \
                -c "INSERT INTO timings SELECT '$tab', 'knn_10', time_set('SELECT id FROM $tab ORDER BY sh <-> \$1 LIMIT 10')"
        done
    done
}
echo
echo "N = $N, then M = $M inserted; $(machine)"
echo
echo "| run | tier | rows | table 0 pages |"
echo "|---|---|---|---|"
sql -c "SELECT format('| %s | %s | %s | %s |', run, tier, rows, table0_pages) FROM simhash_mih_runs('crawl_mih') ORDER BY run"
sql -c "SELECT format('pending rows: %s; index size %s MB', pending_rows + sealed_rows, pg_relation_size('crawl_mih') / 1048576) FROM simhash_mih_state('crawl_mih')"
# The same rows in one run: a copy of the table, its index built afresh.
sql -c "CREATE TABLE crawl_one AS SELECT * FROM crawl" -c "CREATE INDEX crawl_one_mih ON crawl_one USING simhash_mih (sh) $INDEX_WITH" \
    -c "VACUUM ANALYZE crawl_one"
sql -c "SELECT format('the same rows indexed afresh: %s run, index size %s MB', runs, pg_relation_size('crawl_one_mih') / 1048576) FROM simhash_mih_state('crawl_one_mih')"
time_all
echo
echo "| query set | p50 ms with the runs | p50 ms indexed afresh | ratio |"
echo "|---|---|---|---|"
sql -c "SELECT format('| %s | %s | %s | %sx |', a.query_set, round(a.p50::numeric, 3), round(b.p50::numeric, 3), round((a.p50 / b.p50)::numeric, 2))
        FROM (SELECT query_set, min(p50_ms) p50 FROM timings WHERE state = 'crawl' GROUP BY 1) a
        JOIN (SELECT query_set, min(p50_ms) p50 FROM timings WHERE state = 'crawl_one' GROUP BY 1) b USING (query_set) ORDER BY 1"
