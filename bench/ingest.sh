#!/usr/bin/env bash
# Ingestion benchmark: a simhash_mih index while a crawler writes. Loads N rows of the workload
# (bench/gen/workload.cpp), measures W pgbench writers inserting random hashes for T seconds with no
# simhash index (the baseline insert rate), builds the index, times the fresh index's queries, then
# runs the same writers for T seconds while sampling every S seconds radius k = 3/5/8 and KNN-10
# p50/p99 over NQ queries and the index's state (insert rate since the last sample, pending rows,
# the runs' sizes, the index's size). Every query also runs on crawl_ref, the N first rows with a
# fresh index that no writer touches, right before or after (see time_pair): the ratio of the two
# is what the growing index's state costs under the same load (2 busy writers on a 2-core machine
# slow both). At the end: the grown index, writers stopped, its worker gone (a build that settles an
# index at rest has settled it) and every page of it in shared buffers, against a fresh index of
# the same rows (in a copy of the table), in turns, and again once simhash_mih_merge made it one
# run; its size against that fresh index's; the insert rate and p99
# insert latency against the baseline; write amplification (rows written into runs / rows
# inserted). Each sample also says what ran beside it (the growing index's merges, VACUUMs,
# checkpoints), and the ratios are split by it at the end.
# With GROWN_REF=1 (and RATE), a second fresh index no writer touches, of the N rows and RATE x T
# random hashes made as the writers make theirs (crawl_ref2: the rows the growing index will
# hold at the end), is timed in the same turns: a fresh index's times grow with its rows (about as
# a power of them), so each sample is then also compared with a fresh index of the sample's row
# count, its p50 interpolated between the two references' (log-log), which separates what the
# growing index's state costs from what its growth costs. (Each turn then runs three queries, and
# a third table and index take room in shared buffers: such a run's ratios to crawl_ref are not
# comparable with a run's without it.) With TWIN_REF=1 instead, the second reference holds the N
# rows only, a twin of the first: how far two fresh indexes of the same rows differ from sample to
# sample under the same load is the method's own noise.
#
#   bench/ingest.sh N W T S          e.g. bench/ingest.sh 1000000 2 180 30
#
# Environment: RATE (inserts/s for all writers together; unset: as fast as they can), NQ=200,
# SEED=42, INDEX_WITH (e.g. "WITH (pending_limit = 1024)"), BASELINE_S (seconds of the no-index run,
# default min(T, 60)), SIMHASH_PG_OPTS (the server's settings, default shared_buffers = 4GB: twice
# the 2 GB of the fresh-index figures of doc/performance.md, as the run holds two tables and
# indexes, the growing one and the reference, and while a merge into the base runs two copies of the
# base; with 2 GB, pages of both were evicted and read back in the samples; PostgreSQL takes huge
# pages where the machine reserved them, and the report says whether it did: see
# doc/performance.md). Starts its own throwaway server (scripts/pgtmp.sh) with the extension the
# pg_config on PATH installed, synchronous_commit = off for the writers, autovacuum on (default).
# Every query set is timed in one session that lives through the whole run, as a pooled connection's
# does: a new backend pays for its first touch of each shared buffer (a page fault) and its caches'
# first loads, which would be timed too, and more the more pages a query reads. Works with builds
# before simhash_mih had runs (1.2): the state then comes from simhash_mih_check.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: bench/ingest.sh N W T S}
W=${2:-2}
T=${3:-180}
S=${4:-30}
NQ=${NQ:-200}
SEED=${SEED:-42}
BASELINE_S=${BASELINE_S:-$((T < 60 ? T : 60))}
INDEX_WITH=${INDEX_WITH:-}
ref2_rows=
if [ -n "${GROWN_REF:-}" ]; then
    ref2_rows=$((N + ${RATE:?GROWN_REF needs RATE} * T))
    [ "$ref2_rows" -gt "$N" ] || { echo "GROWN_REF needs a whole RATE above 0" >&2; exit 2; }
elif [ -n "${TWIN_REF:-}" ]; then
    ref2_rows=$N
fi

export SIMHASH_PG_OPTS=${SIMHASH_PG_OPTS:--c shared_buffers=4GB}
. "$here/lib.sh"
chmod 755 "$work"
cleanup() {
    [ -n "${writers:-}" ] && kill "$writers" 2>/dev/null || true
    [ -n "${SAMPLER_PID:-}" ] && kill "$SAMPLER_PID" 2>/dev/null || true
    [ -n "${poller:-}" ] && kill "$poller" 2>/dev/null || true
    bench_cleanup
}
trap cleanup EXIT
start_server

sql -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_prewarm" \
    -c "CREATE TABLE crawl (id bigserial PRIMARY KEY, sh simhash)" \
    -c "CREATE TABLE samples (at_s int, query_set text, p50_ms float8, p99_ms float8)" \
    -c "CREATE TABLE page_reads (at_s int, tab text, reads bigint, heap_reads bigint)" \
    -c "CREATE TABLE activity (at timestamptz, merges text, vacuums text, checkpoints bigint)" \
    -c "CREATE TABLE sample_times (at_s int, query_set text, started timestamptz, ended timestamptz)" \
    -c "CREATE TABLE sample_rows (at_s int, rows bigint)" \
    -c "CREATE TABLE query_sets (ord int, name text, query text, k int)" \
    -c "INSERT INTO query_sets VALUES (1, 'radius_3', 'SELECT id FROM %I WHERE hamming(sh, \$1) <= 3', 3),
            (2, 'radius_5', 'SELECT id FROM %I WHERE hamming(sh, \$1) <= 5', 5), (3, 'radius_8', 'SELECT id FROM %I WHERE hamming(sh, \$1) <= 8', 8),
            (4, 'knn_10', 'SELECT id FROM %I ORDER BY sh <-> \$1 LIMIT 10', 10)"
# a slice of NQ queries for every sample (see time_pair)
load_workload "$N" "$SEED" "$((NQ * (T / S + 8)))"
sql -c "SELECT setval('crawl_id_seq', $N)" -c "VACUUM ANALYZE crawl" -c "CHECKPOINT" >/dev/null

sql -f "$here/pair_timing.sql"
sql <<'EOF'
-- The pages of the growing index and of the reference's (and of their tables: heap_reads) that
-- this transaction found outside shared buffers so far (fetches less hits): the part of a slowdown
-- that is pages evicted, not shape.
CREATE FUNCTION pages_read(p_ref text) RETURNS TABLE (tab text, reads bigint, heap_reads bigint) LANGUAGE sql AS $$
    SELECT t, pg_stat_get_xact_blocks_fetched((t || '_mih')::regclass) - pg_stat_get_xact_blocks_hit((t || '_mih')::regclass),
           pg_stat_get_xact_blocks_fetched(t::regclass) - pg_stat_get_xact_blocks_hit(t::regclass)
    FROM unnest(ARRAY['crawl', p_ref]) t
$$;
-- The scans of query set p_set's plan for query p_qid on table p_tab ("Bitmap Heap Scan, Bitmap
-- Index Scan"): a ratio of two tables' timings compares their indexes only if the plans match.
CREATE FUNCTION scans_of(p_set text, p_tab text, p_qid int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE s record; line text; scans text[] := '{}';
BEGIN
    SELECT * INTO s FROM query_sets WHERE name = p_set;
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || format(s.query, p_tab) USING (SELECT h FROM queries WHERE qid = p_qid), s.k LOOP
        IF line ~ 'Scan' THEN
            scans := scans || substring(line FROM '(\w[\w ]*Scan)');
        END IF;
    END LOOP;
    RETURN array_to_string(scans, ', ');
END $$;
-- What else runs, read every quarter second by a poller (see below): the growing index's merges
-- (their phase and rows), the VACUUMs (autovacuum's too: a table's name and phase), and the
-- checkpoints done so far.
CREATE FUNCTION note_activity() RETURNS void LANGUAGE plpgsql AS $$
DECLARE merges text;
BEGIN
    IF to_regclass('simhash_mih_merge_progress') IS NOT NULL THEN
        EXECUTE $q$SELECT string_agg(phase || ' ' || rows_total, ', ') FROM simhash_mih_merge_progress
                   WHERE indexrelid = 'crawl_mih'::regclass$q$ INTO merges;
    END IF;
    INSERT INTO activity SELECT clock_timestamp(), merges,
        (SELECT string_agg(relid::regclass || ' ' || phase, ', ') FROM pg_stat_progress_vacuum),
        (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter);
END $$;
-- The poller's readings while query set p_set of sample p_at ran (every set if p_set is NULL), or
-- a quarter second before or after: a radius set takes less time than that.
CREATE FUNCTION activity_during(p_at int, p_set text) RETURNS SETOF activity LANGUAGE sql AS $$
    SELECT a.* FROM activity a
    JOIN sample_times t ON a.at BETWEEN t.started - interval '0.25 s' AND t.ended + interval '0.25 s'
    WHERE t.at_s = p_at AND (p_set IS NULL OR t.query_set = p_set)
$$;
-- What ran beside a sample: each merge and VACUUM seen, and the checkpoints counted meanwhile.
CREATE FUNCTION activity_at(p_at int) RETURNS text LANGUAGE sql AS $$
    SELECT concat_ws('; ', nullif(concat_ws(', ', (SELECT string_agg(DISTINCT m, ', ') FROM activity_during(p_at, NULL), unnest(string_to_array(merges, ', ')) m),
                                            (SELECT string_agg(DISTINCT v, ', ') FROM activity_during(p_at, NULL), unnest(string_to_array(vacuums, ', ')) v)), ''),
                     (SELECT nullif(max(checkpoints) - min(checkpoints), 0) || ' checkpoint(s)' FROM activity_during(p_at, NULL)))
$$;
-- Every query set of a sample, on slice p_slice of the queries, against p_ref (and p_ref2).
CREATE FUNCTION sample(p_at int, p_ref text, p_slice int, p_ref2 text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE s record; t record;
BEGIN
    CREATE TEMP TABLE reads_before ON COMMIT DROP AS SELECT * FROM pages_read(p_ref);
    FOR s IN SELECT * FROM query_sets ORDER BY ord LOOP
        INSERT INTO sample_times VALUES (p_at, s.name, clock_timestamp());
        t := time_pair(s.query, s.k, p_ref, p_slice, p_ref2);
        UPDATE sample_times SET ended = clock_timestamp() WHERE at_s = p_at AND query_set = s.name;
        INSERT INTO samples VALUES (p_at, s.name, t.p50_ms, t.p99_ms), (p_at, 'ref_' || s.name, t.ref_p50_ms, t.ref_p99_ms);
        IF p_ref2 IS NOT NULL THEN
            INSERT INTO samples VALUES (p_at, 'ref2_' || s.name, t.ref2_p50_ms, t.ref2_p99_ms);
        END IF;
    END LOOP;
    INSERT INTO page_reads SELECT p_at, CASE WHEN tab = 'crawl' THEN tab ELSE 'ref' END, now.reads - before.reads,
                                  now.heap_reads - before.heap_reads
    FROM pages_read(p_ref) now JOIN reads_before before USING (tab);
END $$;
CREATE FUNCTION p50(p_at int, p_set text) RETURNS numeric LANGUAGE sql AS $$
    SELECT round(p50_ms::numeric, 3) FROM samples WHERE at_s = p_at AND query_set = p_set
$$;
-- Pending (unsorted) rows, runs and rows written into runs so far.
CREATE FUNCTION index_state(OUT pending bigint, OUT runs int, OUT inserted bigint, OUT written bigint)
LANGUAGE plpgsql AS $$
BEGIN
    IF to_regproc('simhash_mih_state') IS NOT NULL THEN
        EXECUTE 'SELECT pending_rows + sealed_rows, runs, inserted_rows, written_rows FROM simhash_mih_state(''crawl_mih'')'
        INTO pending, runs, inserted, written;
    ELSE
        SELECT pending_rows, 1, NULL, NULL INTO pending, runs, inserted, written FROM simhash_mih_check('crawl_mih');
    END IF;
END $$;
-- The runs' rows, largest first (1.2M, 298k, 19k), or "-" before runs (1.2).
CREATE FUNCTION run_sizes() RETURNS text LANGUAGE plpgsql AS $$
DECLARE sizes text;
BEGIN
    IF to_regproc('simhash_mih_runs') IS NULL THEN
        RETURN '-';
    END IF;
    EXECUTE $q$SELECT string_agg(CASE WHEN rows >= 1000000 THEN round(rows / 1e6, 1) || 'M'
                                     WHEN rows >= 1000 THEN round(rows / 1e3) || 'k' ELSE rows::text END,
                                ' ' ORDER BY rows DESC) FROM simhash_mih_runs('crawl_mih')$q$ INTO sizes;
    RETURN sizes;
END $$;
EOF

# The sampling session, for the whole run (see the top). sample_at AT [REF] times every query set in
# it against REF (default: crawl_ref, and crawl_ref2 with GROWN_REF or TWIN_REF), each sample on
# the next slice of the queries; warm_sample_at times them twice and keeps the second: fresh
# indexes as a session that has been querying them sees them.
coproc SAMPLER { sql -f - 2>&1; }
printf 'SET pair_timing.nq = %s;\n' "$NQ" >&"${SAMPLER[1]}"
slice=0
sample_at() {
    local out
    slice=$((slice + 1))
    local ref2=NULL
    [ -z "${2:-}" ] && [ -n "$ref2_rows" ] && ref2="'crawl_ref2'"
    printf 'SELECT sample(%s, %s, %s, %s);\n\\echo sampled\n' "$1" "'${2:-crawl_ref}'" "$slice" "$ref2" >&"${SAMPLER[1]}"
    while read -r out <&"${SAMPLER[0]}"; do
        [ "$out" = sampled ] && return 0
        [ -n "$out" ] && echo "$out" >&2
    done
    log "the sampling session ended"
    return 1
}
warm_sample_at() {
    sample_at "$@"
    sql -c "DELETE FROM samples WHERE at_s = $1" -c "DELETE FROM page_reads WHERE at_s = $1" \
        -c "DELETE FROM sample_times WHERE at_s = $1"
    sample_at "$@"
}

cat >"$work/insert.sql" <<'EOF'
\set r random(1, 1000000000000)
INSERT INTO crawl (sh) VALUES (('x' || substr(md5(:r || '/' || :client_id), 1, 16))::bit(64)::simhash);
EOF
rate_opt=()
[ -n "${RATE:-}" ] && rate_opt=(--rate="$RATE")
# Runs the writers for $1 seconds in the background, logging 5% of the transactions' latencies.
run_writers() {
    PGOPTIONS="-c synchronous_commit=off" pgbench --no-vacuum --client="$W" --jobs="$W" --time="$1" \
        "${rate_opt[@]}" --log --sampling-rate=0.05 --log-prefix="$work/$2" -f "$work/insert.sql" \
        >"$work/$2.out" 2>&1 &
    writers=$!
}

log "writers without a simhash index: $W for $BASELINE_S s"
run_writers "$BASELINE_S" noindex
wait "$writers"; writers=
base_tps=$(tps_of noindex)
sql -c "DELETE FROM crawl WHERE id > $N" -c "VACUUM crawl" -c "CHECKPOINT" >/dev/null

log "building the index"
t0=$(date +%s.%N)
sql -c "CREATE INDEX crawl_mih ON crawl USING simhash_mih (sh) $INDEX_WITH" -c "ANALYZE crawl"
build_s=$(echo "$(date +%s.%N) - $t0" | bc)
sql -c "CREATE TABLE crawl_ref AS SELECT * FROM crawl" \
    -c "CREATE INDEX crawl_ref_mih ON crawl_ref USING simhash_mih (sh) $INDEX_WITH" -c "VACUUM ANALYZE crawl_ref"
sql -c "SELECT pg_prewarm('crawl_mih'), pg_prewarm('crawl'), pg_prewarm('crawl_ref_mih'), pg_prewarm('crawl_ref')" >/dev/null
if [ -n "$ref2_rows" ]; then
    log "a second fresh index, of $ref2_rows rows"
    sql -c "CREATE TABLE crawl_ref2 AS SELECT * FROM crawl UNION ALL
                SELECT $N + g, ('x' || substr(md5(random()::text || '/' || g), 1, 16))::bit(64)::simhash
                FROM generate_series(1, $ref2_rows - $N) g" \
        -c "CREATE INDEX crawl_ref2_mih ON crawl_ref2 USING simhash_mih (sh) $INDEX_WITH" \
        -c "VACUUM ANALYZE crawl_ref2" -c "SELECT pg_prewarm('crawl_ref2_mih'), pg_prewarm('crawl_ref2')" >/dev/null
fi
warm_sample_at 0
size0=$(sql -c "SELECT pg_relation_size('crawl_mih')")

log "writers with the index: $W for $T s, sampling every $S s"
# The rows so far, from the ids the writers took (every insert takes one and none fails): a
# count(*) of the table at every sample would be a parallel scan of millions of rows, whose
# workers take both cores from the writers for a second.
seq0=$(sql -c "SELECT last_value FROM crawl_id_seq")
rows_now() { sql -c "SELECT $N + last_value - $seq0 FROM crawl_id_seq"; }
run_writers "$T" indexed
# The poller of what runs beside the samples (note_activity), until the writers stop.
printf 'SELECT note_activity() \\watch 0.25\n' | PGOPTIONS="-c client_min_messages=warning" exec psql -X -q >/dev/null 2>&1 &
poller=$!
start=$(date +%s)
echo
echo "| s | rows | inserts/s | pending | runs: rows | index MB | radius 3 / 5 / 8 p50 | radius 5 p99 | KNN-10 p50 / p99 | fresh index, same load: r3 / r5 / r8 / KNN p50 | index pages read from outside shared buffers: growing / fresh | beside the sample: merges, VACUUMs, checkpoints |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
prev_at=0
prev_rows=$N
# One line of the table for the sample at $1 s, which began with $2 rows (default: as many as now);
# the insert rate is since the previous line's. The sample's rows are the mean of the two counts:
# the writers went on while it ran.
line() {
    local rows
    rows=$(rows_now)
    sql -c "INSERT INTO sample_rows VALUES ($1, (${2:-$rows} + $rows) / 2)"
    sql -c "SELECT format('| %s | %s | %s | %s | %s: %s | %s | %s / %s / %s | %s | %s / %s | %s / %s / %s / %s | %s / %s | %s |', $1, $rows,
        CASE WHEN $1 > $prev_at THEN round(($rows - $prev_rows)::numeric / ($1 - $prev_at)) END,
        st.pending, st.runs, run_sizes(), pg_relation_size('crawl_mih') / 1048576,
        p50($1, 'radius_3'), p50($1, 'radius_5'), p50($1, 'radius_8'),
        (SELECT round(p99_ms::numeric, 3) FROM samples WHERE at_s = $1 AND query_set = 'radius_5'),
        p50($1, 'knn_10'), (SELECT round(p99_ms::numeric, 3) FROM samples WHERE at_s = $1 AND query_set = 'knn_10'),
        p50($1, 'ref_radius_3'), p50($1, 'ref_radius_5'), p50($1, 'ref_radius_8'), p50($1, 'ref_knn_10'),
        (SELECT reads FROM page_reads WHERE at_s = $1 AND tab = 'crawl'),
        (SELECT reads FROM page_reads WHERE at_s = $1 AND tab = 'ref'), activity_at($1))
        FROM index_state() st"
    prev_at=$1
    prev_rows=$rows
}
sample_line() {
    local before
    before=$(rows_now)
    sample_at "$1"
    line "$1" "$before"
}
line 0
while kill -0 "$writers" 2>/dev/null; do
    sleep "$S"
    kill -0 "$writers" 2>/dev/null || break
    sample_line "$(( $(date +%s) - start ))"
done
wait "$writers"; writers=
idx_tps=$(tps_of indexed)
# the last sample, unless the loop's took this second
at=$(( $(date +%s) - start ))
[ "$at" -gt "$prev_at" ] && sample_line "$at"
kill "$poller"; poller=
read -r inserted written <<<"$(sql -F' ' -c "SELECT inserted, written FROM index_state()")"
size1=$(sql -c "SELECT pg_relation_size('crawl_mih')")
last=$prev_at
stopped=$(date +%s)

# The grown index against a fresh index of the same rows (a copy of the table), both prewarmed and
# timed in turns, writers stopped: what is left of the slowdown is the grown index's shape (runs,
# pending rows), neither the writers' load nor pages evicted meanwhile.
# The reference goes first; the tables are prewarmed too when both tables and both indexes fill at
# most 90% of shared buffers (SIMHASH_PG_OPTS), or else only the indexes: the result rows' table
# pages are then read from outside shared buffers, and more of the grown table's, written long
# before, than of the copy's, just written (see the table pages read, at the end).
log "a fresh index of the same rows, in a copy of the table"
sql -c "DROP TABLE crawl_ref" -c "DROP TABLE IF EXISTS crawl_ref2" -c "CREATE TABLE crawl_copy AS SELECT * FROM crawl" \
    -c "CREATE INDEX crawl_copy_mih ON crawl_copy USING simhash_mih (sh) $INDEX_WITH" -c "VACUUM ANALYZE crawl_copy" \
    -c "SELECT pg_prewarm('crawl_mih'), pg_prewarm('crawl_copy_mih')" >/dev/null
# At rest: a build whose worker settles an index once its writers paused (1.3) merges what the last
# flushes left; the grown index is timed once no worker is left (at most 20 minutes).
while [ "$(sql -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'")" != 0 ] &&
      [ $(( $(date +%s) - stopped )) -lt 1200 ]; do
    sleep 1
done
rest="$(( $(date +%s) - stopped )) s after the writers stopped: runs $(sql -c "SELECT run_sizes()"), $(sql -c "SELECT pending FROM index_state()") pending rows, $(sql -c "SELECT written - ${written:-0} FROM index_state()") rows written since"
tables_fit=$(sql -c "SELECT sum(pg_relation_size(r)) < 0.9 * pg_size_bytes(current_setting('shared_buffers'))
                     FROM unnest('{crawl,crawl_mih,crawl_copy,crawl_copy_mih}'::regclass[]) r")
prewarm_at_rest() {
    sql -c "SELECT pg_prewarm('crawl_mih')" >/dev/null
    [ "$tables_fit" = t ] && sql -c "SELECT pg_prewarm('crawl'), pg_prewarm('crawl_copy')" >/dev/null
    return 0
}
prewarm_at_rest
warm_sample_at -1 crawl_copy
size2=$(sql -c "SELECT pg_relation_size('crawl_copy_mih')")
# The grown index once every run and the pending rows are merged into one run: what is left then
# against the fresh index is the merged run itself; the rest of the grown index's ratio above is
# what its runs and pending rows cost.
if [ "$(sql -c "SELECT to_regproc('simhash_mih_merge') IS NOT NULL")" = t ]; then
    sql -c "SELECT simhash_mih_merge('crawl_mih')" >/dev/null
    prewarm_at_rest
    warm_sample_at -2 crawl_copy
fi

echo
echo "N = $N, $W writers ${RATE:+at $RATE inserts/s }for $T s, $NQ queries a set; $(machine)"
echo "build of the N rows: $(printf '%.1f' "$build_s") s, $((size0 / 1048576)) MB"
echo "inserts/s: $base_tps without the index, $idx_tps with it ($(echo "scale=2; $idx_tps / $base_tps" | bc)x); p99 insert latency ms: $(p99_of noindex) without, $(p99_of indexed) with${RATE:+ (from the schedule); of the transaction alone: $(p99_of noindex own) without, $(p99_of indexed own) with}"
[ -n "$inserted" ] && [ "$inserted" != 0 ] &&
    echo "write amplification (rows written into runs / rows inserted): $written / $inserted = $(echo "scale=2; $written / $inserted" | bc)"
echo "index size at the end: $((size1 / 1048576)) MB; a fresh index of the same rows: $((size2 / 1048576)) MB ($(echo "scale=2; $size1 / $size2" | bc)x)"
echo "the grown index at rest, timed $rest; prewarmed: $([ "$tables_fit" = t ] && echo "both tables and both indexes" || echo "both indexes (the tables did not fit in shared buffers)")"
echo
echo "Each sample's p50 on the growing index / on the fresh reference, timed in turns (the writers' load divides out):"
echo
echo "| query set | median sample | worst sample | samples within 1.3x | within 2x or +0.15 ms | fresh at the start / reference | grown, writers stopped, prewarmed / fresh of the same rows | the same, merged into one run |"
echo "|---|---|---|---|---|---|---|---|"
sql -c "WITH r AS (SELECT g.at_s, g.query_set, g.p50_ms AS g, f.p50_ms AS f, g.p50_ms / nullif(f.p50_ms, 0) AS x
                   FROM samples g JOIN samples f ON f.at_s = g.at_s AND f.query_set = 'ref_' || g.query_set)
        SELECT format('| %s | %sx | %sx (at %s s) | %s of %s | %s | %sx | %sx | %s |', query_set,
               round((percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE at_s > 0))::numeric, 2),
               round(max(x) FILTER (WHERE at_s > 0)::numeric, 2),
               (array_agg(at_s ORDER BY x DESC) FILTER (WHERE at_s > 0))[1],
               count(*) FILTER (WHERE at_s > 0 AND x <= 1.3), count(*) FILTER (WHERE at_s > 0),
               count(*) FILTER (WHERE at_s > 0 AND g <= greatest(2 * f, f + 0.15)),
               round(max(x) FILTER (WHERE at_s = 0)::numeric, 2), round(max(x) FILTER (WHERE at_s = -1)::numeric, 2),
               coalesce(round(max(x) FILTER (WHERE at_s = -2)::numeric, 2) || 'x', '-'))
        FROM r GROUP BY query_set ORDER BY query_set"
if [ "${ref2_rows:-0}" = "$N" ]; then
    echo
    echo "The two fresh indexes of the same $N rows, timed in the same turns: the second's p50 / the first's, each sample:"
    echo
    echo "| query set | median sample | lowest, highest | samples where one took over 1.3x the other's | over 1.3x and 0.15 ms |"
    echo "|---|---|---|---|---|"
    sql -c "WITH r AS (SELECT f.query_set, f.p50_ms AS f, f2.p50_ms AS f2, f2.p50_ms / f.p50_ms AS x
                       FROM samples f JOIN samples f2 ON f2.at_s = f.at_s AND f2.query_set = 'ref2_' || substr(f.query_set, 5)
                       WHERE f.at_s > 0 AND f.query_set LIKE 'ref\_%' AND f.p50_ms > 0 AND f2.p50_ms > 0)
            SELECT format('| %s | %sx | %sx, %sx | %s of %s | %s |', substr(query_set, 5),
                   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY x))::numeric, 2), round(min(x)::numeric, 2),
                   round(max(x)::numeric, 2), count(*) FILTER (WHERE greatest(x, 1 / x) > 1.3), count(*),
                   count(*) FILTER (WHERE greatest(x, 1 / x) > 1.3 AND abs(f2 - f) > 0.15))
            FROM r GROUP BY query_set ORDER BY query_set"
elif [ -n "$ref2_rows" ]; then
    echo
    echo "Each sample's p50 on the growing index / a fresh index of the sample's rows (its p50 interpolated by the rows, log-log, between the reference of $N rows and the one of $ref2_rows):"
    echo
    echo "| query set | median sample | worst sample | samples within 1.3x | within 1.3x or +0.15 ms | fresh index of $ref2_rows rows / of $N: median sample |"
    echo "|---|---|---|---|---|---|"
    sql -c "WITH r AS (SELECT g.at_s, g.query_set, g.p50_ms AS g, f2.p50_ms / f.p50_ms AS growth,
                              exp(ln(f.p50_ms) + ln(f2.p50_ms / f.p50_ms) * ln(n.rows::float8 / $N) / ln($ref2_rows::float8 / $N)) AS f
                       FROM samples g JOIN samples f ON f.at_s = g.at_s AND f.query_set = 'ref_' || g.query_set
                       JOIN samples f2 ON f2.at_s = g.at_s AND f2.query_set = 'ref2_' || g.query_set
                       JOIN sample_rows n ON n.at_s = g.at_s
                       WHERE g.at_s > 0 AND g.query_set NOT LIKE 'ref%' AND f.p50_ms > 0 AND f2.p50_ms > 0)
            SELECT format('| %s | %sx | %sx (at %s s) | %s of %s | %s | %sx |', query_set,
                   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY g / f))::numeric, 2), round(max(g / f)::numeric, 2),
                   (array_agg(at_s ORDER BY g / f DESC NULLS LAST))[1], count(*) FILTER (WHERE g <= 1.3 * f), count(g),
                   count(*) FILTER (WHERE g <= greatest(1.3 * f, f + 0.15)),
                   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY growth))::numeric, 2))
            FROM r GROUP BY query_set ORDER BY query_set"
fi
echo
echo "The same ratios by what ran beside the query set (merges of the growing index, VACUUMs of any table):"
echo
echo "| query set | a merge running: samples, median | a VACUUM, no merge: samples, median | neither: samples, median |"
echo "|---|---|---|---|"
sql -c "WITH r AS (SELECT g.query_set, g.p50_ms / nullif(f.p50_ms, 0) AS x,
                          CASE WHEN a.merges IS NOT NULL THEN 'merge' WHEN a.vacuums IS NOT NULL THEN 'vacuum' ELSE 'none' END AS beside
                   FROM samples g JOIN samples f ON f.at_s = g.at_s AND f.query_set = 'ref_' || g.query_set
                   CROSS JOIN LATERAL (SELECT string_agg(merges, ', ') AS merges, string_agg(vacuums, ', ') AS vacuums
                                       FROM activity_during(g.at_s, g.query_set)) a
                   WHERE g.at_s > 0)
        SELECT format('| %s | %s, %s | %s, %s | %s, %s |', query_set,
               count(*) FILTER (WHERE beside = 'merge'), coalesce(round((percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE beside = 'merge'))::numeric, 2) || 'x', '-'),
               count(*) FILTER (WHERE beside = 'vacuum'), coalesce(round((percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE beside = 'vacuum'))::numeric, 2) || 'x', '-'),
               count(*) FILTER (WHERE beside = 'none'), coalesce(round((percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE beside = 'none'))::numeric, 2) || 'x', '-'))
        FROM r GROUP BY query_set ORDER BY query_set"
sql -c "SELECT format('index pages read from outside shared buffers by the query sets: growing index %s at the last sample (%s s), %s at rest; fresh copy %s',
               sum(reads) FILTER (WHERE at_s = $last AND tab = 'crawl'), $last, sum(reads) FILTER (WHERE at_s = -1 AND tab = 'crawl'),
               sum(reads) FILTER (WHERE at_s = -1 AND tab = 'ref')) FROM page_reads"
sql -c "SELECT format('table pages read from outside shared buffers by the query sets at rest: grown table %s, its copy %s',
               sum(heap_reads) FILTER (WHERE at_s = -1 AND tab = 'crawl'), sum(heap_reads) FILTER (WHERE at_s = -1 AND tab = 'ref')) FROM page_reads"
echo "plans at rest, the first query of each set: grown table / its copy"
sql -c "SELECT format('- %s: %s / %s', name, scans_of(name, 'crawl', 1), scans_of(name, 'crawl_copy', 1)) FROM query_sets ORDER BY ord"
