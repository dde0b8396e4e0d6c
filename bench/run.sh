#!/usr/bin/env bash
# Index benchmark: radius (k = 3, 5, 8) and nearest-neighbour (10) queries over N generated rows,
# per index method of bench/methods.conf, with p50/p99 latency, recall against the exact answers,
# build time, index size, and each method's ratio to the sequential scan of the same run.
#
#   bench/run.sh N [METHOD...]        e.g. bench/run.sh 1000000   or   bench/run.sh 100000 gist
#
# Uses the server in PGHOST/PGPORT if set, else starts a throwaway one (scripts/pgtmp.sh) with the
# installed extension. Environment: SEED=42 NQ=1000 KS="3 5 8" BUDGET_S=60 (per query set: slow
# methods run at least 20 queries, then stop after BUDGET_S seconds), PASSES=1 (more: the queries
# run that many times, each pass in another order, and each keeps its fastest time), BENCH_DB=simhash_bench,
# SIMHASH_WORKLOAD=uniform for uniform random rows and queries (bench/gen/workload.cpp),
# BENCH_RESULTS=FILE also writes the results as tab-separated lines (method, query set, p50 ms,
# p99 ms, recall) for another script to compare (bench/majors.sh).
# The data stays in BENCH_DB between runs (reloaded when N, SEED or NQ change).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: bench/run.sh N [METHOD...]}
shift
SEED=${SEED:-42}
NQ=${NQ:-1000}
KS=${KS:-"3 5 8"}
BUDGET_S=${BUDGET_S:-60}
PASSES=${PASSES:-1}
DB=${BENCH_DB:-simhash_bench}
KNN=10
WORKLOAD=${SIMHASH_WORKLOAD:-crawl}
export SIMHASH_WORKLOAD=$WORKLOAD
KMAX=$(tr ' ' '\n' <<<"$KS" | sort -n | tail -n1)

. "$here/lib.sh"
[ -n "${PGHOST:-}" ] || start_server
export PGDATABASE=$DB   # where sql (bench/lib.sh) works

now() { date +%s.%N; }
since() { awk -v t0="$1" -v t1="$(now)" 'BEGIN { printf "%.3f", t1 - t0 }'; }   # seconds since $1

psql -X -q -At -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 ||
    psql -X -q -d postgres -c "CREATE DATABASE $DB"
sql -c "SET client_min_messages = warning" -c "SET check_function_bodies = off" -c "CREATE EXTENSION IF NOT EXISTS simhash" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -f "$here/timing.sql" \
    -c "CREATE TABLE IF NOT EXISTS bench_data (n bigint, seed bigint, nq int, kmax int)" \
    -c "ALTER TABLE bench_data ADD COLUMN IF NOT EXISTS workload text NOT NULL DEFAULT 'crawl'"

if [ "$(sql -c "SELECT count(*) FROM bench_data WHERE n = $N AND seed = $SEED AND nq = $NQ AND kmax >= $KMAX AND workload = '$WORKLOAD'")" = 0 ]; then
    log "generating and loading N=$N seed=$SEED, $WORKLOAD workload ($NQ queries, exact answers to k=$KMAX)"
    t0=$(now)
    sql -c "DROP TABLE IF EXISTS bench_table, bench_queries, bench_truth, bench_knn_truth, staging" \
        -c "TRUNCATE bench_data, bench_latency" \
        -c "CREATE UNLOGGED TABLE staging (id bigint, h bigint, kind text, source_id bigint)"
    "$work/workload" rows "$N" "$SEED" | sql -c "COPY staging (id, h) FROM STDIN"
    sql -c "CREATE TABLE bench_table AS SELECT id, h::simhash AS sh FROM staging ORDER BY id" \
        -c "ALTER TABLE bench_table ADD PRIMARY KEY (id)" -c "TRUNCATE staging"
    "$work/workload" queries "$N" "$SEED" "$NQ" | sql -c "COPY staging FROM STDIN"
    sql -c "CREATE TABLE bench_queries AS SELECT id::int AS qid, h::simhash AS h, kind, source_id FROM staging" \
        -c "CREATE TABLE bench_truth (qid int, id bigint, d int)" \
        -c "CREATE TABLE bench_knn_truth (qid int PRIMARY KEY, dk int, below bigint)"
    "$work/workload" truth "$N" "$SEED" "$NQ" "$KMAX" | sql -c "COPY bench_truth FROM STDIN"
    "$work/workload" knntruth "$N" "$SEED" "$NQ" "$KNN" | sql -c "COPY bench_knn_truth FROM STDIN"
    # The checkpoint writes the load out now, not during the first query sets.
    sql -c "CREATE INDEX ON bench_truth (qid, id)" -c "DROP TABLE staging" -c "VACUUM ANALYZE" -c "CHECKPOINT" \
        -c "INSERT INTO bench_data VALUES ($N, $SEED, $NQ, $KMAX, '$WORKLOAD')"
    log "loaded in $(printf '%.1f' "$(since "$t0")") s"
fi

sql -c "CREATE TABLE IF NOT EXISTS bench_results (method text, query_set text, queries bigint,
            p50_ms numeric, p99_ms numeric, recall numeric, wrong bigint, build_s numeric, index_mb numeric)" \
    -c "DELETE FROM bench_results"
radius_sql() { echo "SELECT id FROM bench_table WHERE hamming(sh, \$1) <= $1"; }
knn_sql="SELECT id FROM bench_table ORDER BY sh <-> \$1 LIMIT $KNN"

grep -v '^\s*#' "$here/methods.conf" | grep -v '^\s*$' | while IFS='|' read -r name ddl settings knn; do
    name=$(xargs <<<"$name"); ddl=$(xargs -0 <<<"$ddl" | sed 's/[[:space:]]*$//'); knn=$(xargs <<<"$knn")
    settings=$(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' <<<"$settings")
    if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && [ "$name" != seqscan ]; then continue; fi
    sql -c "DROP INDEX IF EXISTS bench_idx"
    build_s=0 index_mb=0
    if [ -n "$ddl" ]; then
        t0=$(now)
        sql -c "$ddl"
        build_s=$(since "$t0")
        index_mb=$(sql -c "SELECT round(pg_relation_size('bench_idx') / 1048576.0, 1)")
        sql -c "ANALYZE bench_table" -c "SELECT pg_prewarm('bench_idx')" >/dev/null
    fi
    sql -c "SELECT pg_prewarm('bench_table')" >/dev/null
    log "$name: build $(printf '%.1f' "$build_s") s, $index_mb MB; plan at k=5:"
    sql -c "$settings" -c "EXPLAIN (COSTS OFF) $(radius_sql 5 | sed "s/\\\$1/'0'::simhash/")" | sed 's/^/    /' >&2
    sets=()
    for k in $KS; do sets+=("radius_$k|$(radius_sql "$k")|$k"); done
    [ "$knn" = yes ] && sets+=("knn_$KNN|$knn_sql|$KNN")
    for s in "${sets[@]}"; do
        IFS='|' read -r set query k <<<"$s"
        n=$(sql -c "$settings" -c "SELECT bench_time('$name', '$set', \$q\$$query\$q\$, $k, $BUDGET_S, 20, $PASSES)" | tail -n1)
        if [[ $set == knn_* ]]; then result="bench_knn_result('$name', '$set', $k)"; else result="bench_radius_result('$name', '$set', $k)"; fi
        sql -c "INSERT INTO bench_results SELECT '$name', '$set', r.*, $build_s, $index_mb FROM $result r"
        log "  $set: $n queries, $(sql -c "SELECT format('p50 %s ms, p99 %s ms, recall %s', p50_ms, p99_ms, recall) FROM bench_results WHERE method = '$name' AND query_set = '$set'")"
    done
    sql -c "DROP INDEX IF EXISTS bench_idx"
done

echo
echo "N = $N, seed $SEED, $WORKLOAD workload, $NQ queries per set; $(machine)"
echo "cells: p50 / p99 ms (recall) [p50 ratio: sequential scan / method]"
sql -c "
    WITH sets AS (SELECT DISTINCT query_set FROM bench_results),
    methods AS (SELECT method, max(build_s) AS build_s, max(index_mb) AS index_mb FROM bench_results GROUP BY method)
    SELECT '| method | build s | index MB | ' || string_agg(query_set, ' | ' ORDER BY query_set) || ' |'
    FROM sets
    UNION ALL
    SELECT '|---|---|---|' || string_agg('---|', '') FROM sets
    UNION ALL
    SELECT * FROM (
        SELECT format('| %s | %s | %s | ', m.method, round(m.build_s, 1), m.index_mb)
               || string_agg(CASE WHEN r.method IS NULL THEN '-'
                               ELSE format('%s / %s (%s) [%sx]', r.p50_ms, r.p99_ms, r.recall,
                                           round(b.p50_ms / nullif(r.p50_ms, 0), 1)) END,
                             ' | ' ORDER BY s.query_set) || ' |'
        FROM methods m CROSS JOIN sets s
        LEFT JOIN bench_results r ON r.method = m.method AND r.query_set = s.query_set
        LEFT JOIN bench_results b ON b.method = 'seqscan' AND b.query_set = s.query_set
        GROUP BY m.method, m.build_s, m.index_mb ORDER BY m.method <> 'seqscan', m.method) rows"
[ -z "${BENCH_RESULTS:-}" ] ||
    sql -c "\copy (SELECT method, query_set, p50_ms, p99_ms, recall FROM bench_results ORDER BY 1, 2) TO '$BENCH_RESULTS'"
