#!/usr/bin/env bash
# What each part of a grown simhash_mih index costs a query, one part at a time, with no writer:
# loads N rows of the workload (bench/gen/workload.cpp) into crawl and into crawl_ref, both indexed
# afresh, then adds to crawl's index one state after another (pending rows, a merge into one run, a
# run beside it, small runs) and after each times radius k = 3/5/8 and KNN-10 on both tables, each
# query on one right after the other (in both orders in turn; bench/pair_timing.sql), NQ queries no
# state timed before, and prints the p50 of crawl over crawl_ref's. crawl_ref never changes: from
# the merge on, crawl holds a few percent more rows, and the last line compares it with a fresh
# index of the same rows. Autovacuum is off, so that only the statements below flush and merge.
#
#   bench/state_costs.sh N        e.g. bench/state_costs.sh 10000000   (~6 minutes)
#
# The runs are sized for N of 10M or more: the one beside the merged run (580,000 rows) and the two
# flushes' runs beside it stay below a sixteenth of it, so that no merge into it is due; with a
# smaller N, VACUUM merges them into it and the last states are not what they say.
#
# Environment: NQ=800, SEED=42, SIMHASH_PG_OPTS (default shared_buffers = 4GB: two tables and
# indexes). Starts its own throwaway server (scripts/pgtmp.sh) with the extension the pg_config on
# PATH installed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: bench/state_costs.sh N}
NQ=${NQ:-800}
SEED=${SEED:-42}
export SIMHASH_PG_OPTS="${SIMHASH_PG_OPTS:--c shared_buffers=4GB} -c autovacuum=off"
. "$here/lib.sh"
chmod 755 "$work"
start_server

sql -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_prewarm" -c "CREATE TABLE crawl (id bigserial PRIMARY KEY, sh simhash)"
load_workload "$N" "$SEED" "$((NQ * 9))"
sql -c "SELECT setval('crawl_id_seq', $N)" -c "VACUUM ANALYZE crawl" >/dev/null
# reference: a fresh index of the rows crawl has now (or of all its rows, at the end)
reference() {
    sql -c "DROP TABLE IF EXISTS crawl_ref" -c "CREATE TABLE crawl_ref AS SELECT * FROM crawl" \
        -c "CREATE INDEX crawl_ref_mih ON crawl_ref USING simhash_mih (sh)" -c "VACUUM ANALYZE crawl_ref"
}
sql -c "CREATE INDEX crawl_mih ON crawl USING simhash_mih (sh)" -c "ANALYZE crawl"
reference
sql -f "$here/pair_timing.sql"
sql <<'EOF'
-- p50 of one query set on crawl over crawl_ref's, on slice p_slice of the queries.
CREATE FUNCTION ratio(p_sql text, p_slice int) RETURNS numeric LANGUAGE sql AS $$
    SELECT round((p50_ms / ref_p50_ms)::numeric, 2) FROM time_pair(p_sql, 0, 'crawl_ref', p_slice)
$$;
-- One line of the report: crawl's runs and pending rows, then the four ratios.
CREATE FUNCTION report(p_state text, p_slice int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_prewarm('crawl_mih'), pg_prewarm('crawl_ref_mih'), pg_prewarm('crawl'), pg_prewarm('crawl_ref');
    RETURN format('| %s | %s | %s | %s / %s / %s | %s |', p_state,
        (SELECT string_agg(rows::text, ' + ' ORDER BY rows DESC) FROM simhash_mih_runs('crawl_mih')),
        (SELECT pending_rows + sealed_rows FROM simhash_mih_state('crawl_mih')),
        ratio('SELECT id FROM %I WHERE hamming(sh, $1) <= 3', p_slice), ratio('SELECT id FROM %I WHERE hamming(sh, $1) <= 5', p_slice),
        ratio('SELECT id FROM %I WHERE hamming(sh, $1) <= 8', p_slice), ratio('SELECT id FROM %I ORDER BY sh <-> $1 LIMIT 10', p_slice));
END $$;
EOF
# each state on the next slice of NQ queries (see time_pair)
slice=0
state() {
    slice=$((slice + 1))
    log "$1"
    sql -c "SET pair_timing.nq = $NQ" -c "SELECT report('$1', $slice)"
}
# $1 random hashes, none of the workload's ($2 keeps each call's apart)
insert() {
    sql -c "INSERT INTO crawl (sh) SELECT ('x' || substr(md5(g || '/$2'), 1, 16))::bit(64)::simhash FROM generate_series(1, $1) g"
}

echo "N = $N, $NQ new queries a state; $(machine)"
echo
echo "| state of crawl's index | runs (rows) | pending rows | p50 over a fresh index's: radius 3 / 5 / 8 | KNN-10 |"
echo "|---|---|---|---|---|"
state "fresh, as the reference"
# no flush: every inserted row stays pending
sql -c "ALTER INDEX crawl_mih SET (pending_limit = 2000000)"
insert 4600 a; state "4,600 rows inserted"
insert 4600 b; state "9,200 rows inserted"
insert 9200 c; state "18,400 rows inserted"
sql -c "SELECT simhash_mih_merge('crawl_mih')" -c "ALTER INDEX crawl_mih RESET (pending_limit)" >/dev/null
state "merged into one run"
# VACUUM writes the pending rows as one run. With the default limit again (the size tiers count
# in limits), no tier holds four runs, and below a sixteenth of the base no merge is due.
run_of() {
    sql -c "ALTER INDEX crawl_mih SET (pending_limit = 2000000)"
    insert "$1" "$2"
    sql -c "ALTER INDEX crawl_mih RESET (pending_limit)" -c "VACUUM crawl"
}
run_of 580000 d; state "a run of 580,000 rows beside it"
run_of 19000 e; state "and a run of 19,000"
run_of 19000 f; state "and another of 19,000"
sql -c "SELECT simhash_mih_merge('crawl_mih')" >/dev/null
reference
state "merged into one run, against a fresh index of the same rows"
