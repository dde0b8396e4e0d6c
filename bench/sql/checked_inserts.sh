#!/usr/bin/env bash
# Checked inserts: clients store pages into a table that already holds ROWS pages, each learning
# the nearest earlier page within 5 bits in the same transaction, exact under concurrency
# (README "Checking pages as they arrive"). Reports throughput and latency, then checks answers.
#
#   bench/sql/checked_inserts.sh [ROWS] [SECONDS] [CLIENTS]     (defaults 10000000, 60, 4)
#
# Starts a throwaway server (scripts/pgtmp.sh). Half the new pages are one-bit copies of stored
# pages, half are new. pgbench runs the README's statements (lock, insert-and-check) in one
# transaction per page, prepared, with the given clients for SECONDS, twice: a round trip per
# statement, then the transaction pipelined (one round trip); latencies come from pgbench's
# per-transaction log. Afterwards, for 200 sampled pages, one sequential scan re-derives the
# recorded answer (the nearest earlier page's distance) and the index's radius answer (0 wrong expected).
set -euo pipefail
ROWS=${1:-10000000}
SECONDS_RUN=${2:-60}
CLIENTS=${3:-4}
cd "$(dirname "$0")/../.."
export PATH="$(pg_config --bindir):$PATH"
eval "$(SIMHASH_PG_OPTS="-c shared_buffers=2GB -c max_wal_size=8GB -c synchronous_commit=off" scripts/pgtmp.sh start)"
trap 'scripts/pgtmp.sh stop "$SIMHASH_PGDIR"' EXIT
work=$(mktemp -d)
chmod 777 "$work"
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

t0=$(date +%s)
q <<SQL
CREATE EXTENSION simhash;
CREATE TABLE pages (id bigserial PRIMARY KEY, sh simhash NOT NULL);
INSERT INTO pages (sh)
SELECT CASE WHEN i % 10 < 7 THEN ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash
            ELSE ('x' || substr(md5((i / 10) || 'c'), 1, 16))::bit(64)::simhash # (1::bigint << (i * 7 % 64)::int)::simhash END
FROM generate_series(1, $ROWS) i;
CREATE INDEX pages_sh_idx ON pages USING simhash_mih (sh);
VACUUM ANALYZE pages;
CREATE TABLE checked (id bigint PRIMARY KEY, duplicate_of bigint, distance int);
CREATE FUNCTION new_page(r bigint, f int, fresh int) RETURNS simhash LANGUAGE sql STABLE AS \$\$
    SELECT CASE WHEN fresh = 1 THEN ('x' || substr(md5('new' || r || '/' || f), 1, 16))::bit(64)::simhash
                ELSE (SELECT sh FROM pages WHERE id = r) # (1::bigint << f)::simhash END \$\$;
SQL
echo "loaded $ROWS rows with a simhash_mih index in $(( $(date +%s) - t0 )) s"

statements() {  # the README's transaction; with pipeline, sent in one round trip
    echo '\set r random(1, '"$ROWS"')'
    echo '\set f random(0, 63)'
    echo '\set fresh random(0, 1)'
    [ "$1" = pipelined ] && echo '\startpipeline'
    cat <<'SQL'
BEGIN;
SELECT simhash_lock_neighbourhood(new_page(:r, :f, :fresh), 5);
WITH page AS (INSERT INTO pages (sh) VALUES (new_page(:r, :f, :fresh)) RETURNING id, sh)
INSERT INTO checked
SELECT page.id, near.id, near.distance FROM page LEFT JOIN LATERAL (
    SELECT p.id, hamming(p.sh, page.sh) AS distance FROM pages p
    WHERE hamming(p.sh, page.sh) <= 5 ORDER BY p.sh <-> page.sh, p.id LIMIT 1) near ON true;
COMMIT;
SQL
    [ "$1" = pipelined ] && echo '\endpipeline'
    true
}
chown postgres "$work"
for mode in round-trips pipelined; do
    statements "$mode" >"$work/$mode.sql"
    rm -f "$work"/pgbench_log.*
    (cd "$work" && runuser -u postgres -- pgbench -h "$PGHOST" -p "$PGPORT" -U postgres -n -M prepared \
        -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_RUN" --random-seed=20240613 -l -f "$mode.sql" postgres) >"$work/pgbench.out" 2>&1 ||
        { cat "$work/pgbench.out"; exit 1; }
    echo "== $mode: $CLIENTS clients, $SECONDS_RUN s"
    grep -E "number of transactions actually processed|number of failed|tps" "$work/pgbench.out"
    # pgbench's log: client, transaction, latency (us), ...
    cat "$work"/pgbench_log.* | awk '{ print $3 }' | sort -n | awk '
        { v[NR] = $1 } END { printf "latency p50 %.2f ms, p99 %.2f ms over %d checked inserts\n", v[int(NR * 0.5)] / 1000, v[int(NR * 0.99)] / 1000, NR }'
done

# One sequential pass finds every stored page within 5 bits of each sampled page; from it, the
# nearest earlier one (what the insert should have answered) and the count the index should give.
wrong=$(q <<'SQL'
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE sample AS SELECT c.*, p.sh FROM checked c JOIN pages p USING (id) ORDER BY hashint8(c.id) LIMIT 200;
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TEMP TABLE near AS
SELECT s.id, p.id AS other, hamming(p.sh, s.sh) AS distance FROM pages p JOIN sample s ON hamming(p.sh, s.sh) <= 5;
RESET enable_indexscan; RESET enable_bitmapscan; SET enable_seqscan = off;
SELECT (SELECT count(*) FROM sample s
        WHERE s.distance IS DISTINCT FROM (SELECT min(n.distance) FROM near n WHERE n.id = s.id AND n.other < s.id))
     + (SELECT count(*) FROM sample s
        WHERE (SELECT count(*) FROM near n WHERE n.id = s.id)
              <> (SELECT count(*) FROM pages p WHERE hamming(p.sh, s.sh) <= 5));
SQL
)
echo "answers re-derived by sequential scans for 200 sampled inserts: $wrong wrong"
rm -rf "$work"
[ "$wrong" = 0 ]
