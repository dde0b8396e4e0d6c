#!/usr/bin/env bash
# What keeping duplicate clusters current costs (simhash_dedup_*), on ROWS rows of the benchmark
# workload (bench/gen/workload.cpp) at k = K, in one run:
#   - simhash_clusters over the rows (the baseline) and simhash_dedup_start (the same job, then the
#     state written);
#   - CHANGES single-row INSERT statements (the rows after ROWS in the workload) into the table with
#     the capture triggers and into a copy without them;
#   - simhash_dedup_run() for those inserts, for CHANGES / 10 deletes and for CHANGES / 10 hash
#     changes (each page moves one bit);
#   - the check: the clusters equal simhash_clusters' over the same rows (differences 0).
#
#   bench/sql/dedup.sh [ROWS] [CHANGES] [K]     (defaults 1000000, 10000, 5)
#
# Starts a throwaway server (bench/lib.sh).
set -euo pipefail
ROWS=${1:-1000000}
CHANGES=${2:-10000}
K=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$(pg_config --bindir):$PATH"
. "$here/lib.sh"
SIMHASH_PG_OPTS="-c shared_buffers=1GB" start_server
ms() {  # ms SQL...: milliseconds of the statements, in one session
    sql -c "SELECT extract(epoch FROM clock_timestamp()) * 1000" "${@/#/-c}" -c "SELECT extract(epoch FROM clock_timestamp()) * 1000" \
        | awk 'NR == 1 { t = $1 } { last = $1 } END { printf "%.0f", last - t }'
}

sql -c "CREATE EXTENSION simhash" -c "CREATE UNLOGGED TABLE staging (id bigint, h bigint)"
"$work/workload" rows "$((ROWS + CHANGES))" 42 | sql -c "COPY staging FROM STDIN"
sql <<SQL
CREATE TABLE pages (id bigint PRIMARY KEY, sh simhash);
INSERT INTO pages SELECT id, h::simhash FROM staging WHERE id <= $ROWS;
CREATE INDEX ON pages USING simhash_mih (sh);
CREATE TABLE plain (LIKE pages INCLUDING ALL);
INSERT INTO plain SELECT * FROM pages;
CREATE INDEX ON plain USING simhash_mih (sh);
VACUUM ANALYZE pages; VACUUM ANALYZE plain;
SQL
echo "rows $ROWS, changes $CHANGES, k $K"
echo "simhash_clusters:                    $(ms "SELECT count(*) FROM simhash_clusters('SELECT id, sh FROM pages', $K)") ms"
echo "simhash_dedup_start:                 $(ms "SELECT simhash_dedup_start('pages', 'id', 'sh', $K)") ms"
echo "status after start:                  $(sql -c "SELECT pages || ' pages, ' || clusters || ' clusters' FROM simhash_dedup_status('pages')")"
insert_loop() {
    echo "DO \$\$ DECLARE r record; BEGIN FOR r IN SELECT id, h FROM staging WHERE id > $ROWS ORDER BY id LOOP
          INSERT INTO $1 VALUES (r.id, r.h::simhash); END LOOP; END \$\$"
}
echo "$CHANGES single-row inserts, plain:  $(ms "$(insert_loop plain)") ms"
echo "$CHANGES single-row inserts, dedup:  $(ms "$(insert_loop pages)") ms"
echo "backlog:                             $(sql -c "SELECT backlog FROM simhash_dedup_status('pages')")"
echo "run (inserts):                       $(ms "SELECT simhash_dedup_run('pages', $CHANGES)") ms"
sql -c "DELETE FROM pages WHERE id IN (SELECT id FROM pages WHERE id % 89 = 7 ORDER BY id LIMIT $((CHANGES / 10)))" >/dev/null
echo "deletes queued:                      $(sql -c "SELECT backlog FROM simhash_dedup_status('pages')")"
echo "run (deletes):                       $(ms "SELECT simhash_dedup_run('pages', 1000000)") ms"
sql -c "UPDATE pages SET sh = sh # '0000000000000001' WHERE id IN (SELECT id FROM pages WHERE id % 97 = 3 ORDER BY id LIMIT $((CHANGES / 10)))" >/dev/null
echo "hash changes queued:                 $(sql -c "SELECT backlog FROM simhash_dedup_status('pages')")"
echo "run (hash changes):                  $(ms "SELECT simhash_dedup_run('pages', 1000000)") ms"
echo "differences from simhash_clusters:   $(sql -c "
    WITH d AS (SELECT c.id, min(c.id) OVER (PARTITION BY c.cluster_id) AS rep FROM simhash_dedup_clusters('pages') c),
         e AS (SELECT c.id, c.cluster_id AS rep FROM simhash_clusters('SELECT id, sh FROM pages', $K) c)
    SELECT count(*) FILTER (WHERE d.rep IS DISTINCT FROM e.rep) || ' of ' || count(*) FROM d FULL JOIN e USING (id)")"
