#!/usr/bin/env bash
# Duplicate clusters kept current while a crawler writes, in one run on ROWS rows of the benchmark
# workload (bench/gen/workload.cpp: 30% in near-duplicate clusters) with a simhash_mih index, k = 5:
#   1. W writers insert RATE pages a second in all (one page a transaction: the workload's rows
#      after ROWS) for T seconds, without simhash_dedup: their rate and p99 insert latency;
#   2. simhash_clusters over the rows, then simhash_dedup_start on them (the catch-up), timed;
#   3. the same writers for T seconds while the background worker keeps the clusters current
#      (nobody calls simhash_dedup_run): their rate and p99 latency against 1's, and the lag that
#      simhash_dedup_status reports, sampled every second (p50, p99, max) with the backlog;
#   4. the writers as fast as they can for FULL_S seconds: their rate, the rate the worker applies
#      changes at meanwhile, the backlog at the end and how long the worker takes to drain it;
#   5. the check: the clusters equal simhash_clusters' over the same rows.
#
#   bench/sql/dedup_live.sh [ROWS] [RATE] [T] [W]     (defaults 10000000, 3000, 600, 2)
#
# Environment: FULL_S (default 60), SIMHASH_PG_OPTS (the server's settings, default
# shared_buffers = 4GB). Starts its own throwaway server (bench/lib.sh) with the extension the
# pg_config on PATH installed; writers with synchronous_commit = off, as a crawler's bulk writes.
set -euo pipefail
ROWS=${1:-10000000}
RATE=${2:-3000}
T=${3:-600}
W=${4:-2}
FULL_S=${FULL_S:-60}
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$(pg_config --bindir):$PATH"
. "$here/lib.sh"
SIMHASH_PG_OPTS=${SIMHASH_PG_OPTS:-"-c shared_buffers=4GB"} start_server
chmod 777 "$work"

extra=$((RATE * T * 2 + 25000 * FULL_S))
log "loading $ROWS rows, and $extra for the writers"
# (simhash_clusters and simhash_dedup_start hold every row: 10M rows need more than the 1 GB default)
sql -c "CREATE EXTENSION simhash" -c "ALTER DATABASE postgres SET simhash.pairs_memory_limit = '4GB'" \
    -c "CREATE UNLOGGED TABLE staging (id bigint, h bigint)"
"$work/workload" rows "$((ROWS + extra))" 42 | sql -c "COPY staging FROM STDIN"
sql <<SQL
CREATE TABLE pages (id bigint PRIMARY KEY, sh simhash);
INSERT INTO pages SELECT id, h::simhash FROM staging WHERE id <= $ROWS ORDER BY id;
CREATE INDEX pages_mih ON pages USING simhash_mih (sh);
CREATE TABLE incoming (n bigint PRIMARY KEY, sh simhash);
INSERT INTO incoming SELECT id - $ROWS, h::simhash FROM staging WHERE id > $ROWS;
DROP TABLE staging;
CREATE SEQUENCE next_page;
VACUUM ANALYZE pages;
VACUUM ANALYZE incoming;
CHECKPOINT;
SQL
cat >"$work/insert.sql" <<SQL
INSERT INTO pages SELECT $ROWS + i.n, i.sh FROM incoming i WHERE i.n = (SELECT nextval('next_page'));
SQL
# Runs the writers for $1 seconds (at RATE unless $3 = full), logging 10% of the transactions.
writers() {
    local rate=(--rate="$RATE")
    [ "${3:-}" = full ] && rate=()
    (cd "$work" && PGOPTIONS="-c synchronous_commit=off" runuser -u postgres -- pgbench -h "$PGHOST" -p "$PGPORT" \
        -U postgres --no-vacuum --client="$W" --jobs="$W" --time="$1" "${rate[@]}" --log --sampling-rate=0.1 \
        --log-prefix="$work/$2" -f "$work/insert.sql" postgres) >"$work/$2.out" 2>&1
}
# Samples simhash_dedup_status every second into $work/lag until $work/stop exists:
# seconds since the start, lag in s, backlog, changes applied so far.
sample_lag() {
    local t0=$SECONDS
    while [ ! -e "$work/stop" ]; do
        sql -F ' ' -c "SELECT $SECONDS - $t0, extract(epoch FROM s.lag), s.backlog, g.applied
                       FROM simhash_dedup_status('pages') s, simhash_dedup_tables g WHERE g.tbl = 'pages'::regclass" \
            >>"$work/lag"
        sleep 1
    done
}
percentile() {  # percentile P (0-100) of the numbers on stdin
    sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int(NR*p/100); if (i < 1) i = 1; if (NR) printf "%.2f", a[i]; else print "-"}'
}
ms() {
    sql -c "SELECT extract(epoch FROM clock_timestamp()) * 1000" -c "$1" -c "SELECT extract(epoch FROM clock_timestamp()) * 1000" \
        | awk 'NR == 1 { t = $1 } { last = $1 } END { printf "%.0f", last - t }'
}

echo "rows $ROWS, $W writers at $RATE pages/s for $T s, k 5; $(machine)"
log "1. writers without simhash_dedup"
writers "$T" plain
echo "without simhash_dedup:  $(tps_of plain) pages/s, p99 insert $(p99_of plain) ms"

log "2. simhash_clusters, then simhash_dedup_start"
rows_now=$(sql -c "SELECT count(*) FROM pages")
clusters_ms=$(ms "SELECT count(*) FROM simhash_clusters('SELECT id, sh FROM pages', 5)")
start_ms=$(ms "SELECT simhash_dedup_start('pages', 'id', 'sh', 5)")
echo "on $rows_now rows: simhash_clusters $clusters_ms ms, simhash_dedup_start $start_ms ms" \
     "($(echo "scale=2; $start_ms / $clusters_ms" | bc)x)"

log "3. writers with simhash_dedup kept current by the background worker"
rm -f "$work/stop" "$work/lag"
sample_lag &
sampler=$!
writers "$T" dedup
touch "$work/stop"
wait "$sampler"
echo "with simhash_dedup:     $(tps_of dedup) pages/s, p99 insert $(p99_of dedup) ms"
echo "lag (s) over $(wc -l <"$work/lag") samples: p50 $(awk '{print $2}' "$work/lag" | percentile 50)," \
     "p99 $(awk '{print $2}' "$work/lag" | percentile 99), max $(awk '{print $2}' "$work/lag" | percentile 100);" \
     "backlog p99 $(awk '{print $3}' "$work/lag" | percentile 99), max $(awk '{print $3}' "$work/lag" | percentile 100)"

log "4. writers as fast as they can for $FULL_S s"
applied0=$(sql -c "SELECT applied + 0 FROM simhash_dedup_tables")
backlog0=$(sql -c "SELECT backlog FROM simhash_dedup_status('pages')")
writers "$FULL_S" full full
applied1=$(sql -c "SELECT applied FROM simhash_dedup_tables")
backlog1=$(sql -c "SELECT backlog FROM simhash_dedup_status('pages')")
t0=$SECONDS
while [ "$(sql -c "SELECT backlog FROM simhash_dedup_status('pages')")" != 0 ]; do sleep 1; done
echo "full speed: writers $(tps_of full) pages/s; the worker applied $(( (applied1 - applied0) / FULL_S )) changes/s" \
     "($(echo "scale=2; ($applied1 - $applied0) / $FULL_S / $(tps_of full)" | bc)x the writers);" \
     "backlog $backlog0 -> $backlog1, drained $((SECONDS - t0)) s later"

log "5. the check"
echo "differences from simhash_clusters: $(sql -c "
    WITH d AS (SELECT c.id, min(c.id) OVER (PARTITION BY c.cluster_id) AS rep FROM simhash_dedup_clusters('pages') c),
         e AS (SELECT c.id, c.cluster_id AS rep FROM simhash_clusters('SELECT id, sh FROM pages', 5) c)
    SELECT count(*) FILTER (WHERE d.rep IS DISTINCT FROM e.rep) || ' of ' || count(*) FROM d FULL JOIN e USING (id)")"
