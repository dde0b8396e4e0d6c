#!/usr/bin/env bash
# What confirmation costs the crawl-scale job: simhash_pairs against simhash_pairs_confirmed on
# the same ROWS rows of the benchmark workload (bench/gen/workload.cpp), within K bits, in one run.
#
#   bench/sql/confirmed_pairs.sh [ROWS] [RUNS] [K]     (defaults 1000000, 3, 5)
#
# Starts a throwaway server (scripts/pgtmp.sh). Each row gets a resemblance sketch built from its
# hash, so rows with equal hashes have equal sketches and the others estimate near 0. Timed, best
# and median of RUNS, as count(*) over each job (the job's whole work, no client transfer):
#   plain      simhash_pairs('SELECT id, sh FROM pages', K)
#   confirmed  simhash_pairs_confirmed('SELECT id, sh, sk FROM pages', K)          (default 0.87)
#   every pair simhash_pairs_confirmed(..., K, min_resemblance => 0): every pair within K bits is
#              checked and returned with its estimate, the most confirmation can cost.
# Also prints the table's bytes a row with and without the sketch column.
set -euo pipefail
ROWS=${1:-1000000}
RUNS=${2:-3}
K=${3:-5}
cd "$(dirname "$0")/../.."
export PATH="$(pg_config --bindir):$PATH"
eval "$(SIMHASH_PG_OPTS="-c shared_buffers=1GB" scripts/pgtmp.sh start)"
work=$(mktemp -d)
trap 'scripts/pgtmp.sh stop "$SIMHASH_PGDIR"; rm -rf "$work"' EXIT
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

g++ -O2 -std=c++17 -mpopcnt -pthread -o "$work/workload" bench/gen/workload.cpp
q -c "CREATE EXTENSION simhash" -c "CREATE UNLOGGED TABLE staging (id bigint, h bigint)"
"$work/workload" rows "$ROWS" 42 | q -c "COPY staging FROM STDIN"
q <<'SQL'
CREATE TABLE pages AS SELECT id, h::simhash AS sh FROM staging ORDER BY id;
CREATE TABLE pages_sk AS
SELECT id, sh, (md5(sh::text) || md5(sh::text || 'b') || md5(sh::text || 'c') || md5(sh::text || 'd'))::resemblance_sketch AS sk
FROM pages;
VACUUM ANALYZE pages; VACUUM ANALYZE pages_sk;
SQL
echo "rows: $ROWS; bytes a row (heap, with tuple headers): without sketch $(q -c "SELECT pg_relation_size('pages') / $ROWS"), with $(q -c "SELECT pg_relation_size('pages_sk') / $ROWS")"

time_ms() {
    q -c "SELECT extract(epoch FROM clock_timestamp()) * 1000" -c "$1" -c "SELECT extract(epoch FROM clock_timestamp()) * 1000" \
        | awk 'NR == 1 { t = $1 } NR == 2 { n = $1 } NR == 3 { printf "%.0f %s\n", $1 - t, n }'
}
report() {
    local name=$1 sql=$2 times=() out
    for _ in $(seq 1 "$RUNS"); do
        out=$(time_ms "$sql")
        times+=("${out%% *}")
        pairs=${out#* }
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v name="$name" -v pairs="$pairs" \
        '{ t[NR] = $1 } END { printf "%-11s best %6d ms  median %6d ms  pairs %d\n", name, t[1], t[int((NR + 1) / 2)], pairs }'
}
report plain "SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM pages_sk', $K)"
report confirmed "SELECT count(*) FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM pages_sk', $K)"
report "every pair" "SELECT count(*) FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM pages_sk', $K, 0)"
