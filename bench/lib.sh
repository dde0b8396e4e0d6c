# The start-up that the benchmarks timing the workload in a server share (run.sh, runs.sh,
# ingest.sh), sourced by them once their arguments are read, with here set to bench/. It makes a
# temporary directory, work, and compiles the workload generator (bench/gen/workload.cpp) into
# $work/workload; on exit bench_cleanup (the EXIT trap: a script with more to clean up calls it from
# its own) removes work and stops the server that start_server started, if it did.
# shellcheck shell=bash
: "${here:?bench/lib.sh is sourced with here set to the bench directory}"

work=$(mktemp -d)
own_server=
bench_cleanup() {
    [ -n "$own_server" ] && "$here/../scripts/pgtmp.sh" stop "$own_server"
    rm -rf "$work"
}
trap bench_cleanup EXIT
g++ -O2 -std=c++17 -mpopcnt -pthread -o "$work/workload" "$here/gen/workload.cpp"

# A throwaway server (scripts/pgtmp.sh) with the extension the pg_config on PATH installed; exports
# its connection (PGHOST, PGPORT, ...).
start_server() {
    eval "$("$here/../scripts/pgtmp.sh" start)"
    own_server=$SIMHASH_PGDIR
}

# psql on PGDATABASE: warnings only, unaligned, stops at the first error.
sql() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -At "$@"; }

# The machine a report was measured on: cores, processor, and the page size of the server's shared
# memory (its largest mapping, seen from the checkpointer), as huge pages make every query faster
# (a backend's first touch of a shared buffer is a page fault per 4 kB without them). Needs the
# server on this machine and the right to read its processes' smaps (root or its OS user).
machine() {
    local pid page
    pid=$(sql -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")
    page=$(awk '/^Size:/ { size = $2 } /^KernelPageSize:/ && size > biggest { biggest = size; page = $2 }
                END { print page }' "/proc/$pid/smaps" 2>/dev/null || true)
    echo "$(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1); shared memory in ${page:-?} kB pages"
}

log() { echo "[$(date +%T)] $*" >&2; }

# The rate pgbench reported in "$work/$1.out".
tps_of() { sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/$1.out" | tail -n1; }

# p99 of the transactions' latency in ms that pgbench logged with --log-prefix="$work/$1": $2 = from
# (the default) the time pgbench scheduled the transaction (with --rate: what a writer at a steady
# rate sees, its queue behind a slow transaction included), or "own": from when it started (less
# the schedule lag, field 7).
p99_of() {
    cat "$work/$1".* 2>/dev/null | awk -v own="${2:-}" '{print (own && NF >= 7) ? $3 - $7 : $3}' | sort -n |
        awk '{a[NR]=$1} END {if (NR) printf "%.2f", a[int(NR*0.99)]/1000; else print "-"}'
}

# load_workload N SEED NQ: N rows of the workload into crawl (id, sh), which the caller created,
# and its NQ queries into a new table queries (qid, h).
load_workload() {
    local n=$1 seed=$2 nq=$3
    log "loading N=$n rows and $nq queries (seed $seed)"
    sql -c "CREATE TABLE queries (qid int, h simhash)" -c "CREATE TABLE staging (id bigint, h bigint)"
    "$work/workload" rows "$n" "$seed" | sql -c "COPY staging FROM STDIN"
    sql -c "INSERT INTO crawl SELECT id, h::simhash FROM staging ORDER BY id" -c "TRUNCATE staging"
    "$work/workload" queries "$n" "$seed" "$nq" | cut -f1,2 | sql -c "COPY staging FROM STDIN"
    sql -c "INSERT INTO queries SELECT id, h::simhash FROM staging" -c "DROP TABLE staging"
}
