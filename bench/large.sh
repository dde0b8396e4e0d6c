#!/usr/bin/env bash
# The large-table benchmark (100M rows on a 2-core, 24 GB machine): the index benchmark of
# bench/run.sh for simhash_mih (default and blocks = 4) next to the sequential scan (radius
# k = 3/5/8 and KNN-10 p50/p99, build time, index size), then the crawl job simhash_pairs at k = 5
# with the memory it needs.
#
#   bench/large.sh [N]          N defaults to 100000000
#
# Rows stream from the generator into COPY (no file of that size). Starts its own server sized for
# the run (shared_buffers 8GB) unless PGHOST is set. Environment as bench/run.sh (NQ, KS, BUDGET_S,
# SEED), plus METHODS (of bench/methods.conf, default "simhash_mih simhash_mih4"), PAIRS_MEMORY
# (simhash.pairs_memory_limit for the job, default 12GB; 100M rows on 2 threads need 8.8 GB) and
# BENCH_DB (default simhash_large). Needs about 25 GB of disk per 100M rows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${1:-100000000}
export BENCH_DB=${BENCH_DB:-simhash_large}
PAIRS_MEMORY=${PAIRS_MEMORY:-12GB}

if [ -z "${PGHOST:-}" ]; then
    eval "$(SIMHASH_PG_OPTS="-c shared_buffers=8GB -c max_wal_size=50GB -c maintenance_work_mem=2GB -c work_mem=64MB" \
        "$here/../scripts/pgtmp.sh" start)"
    trap '"$here/../scripts/pgtmp.sh" stop "$SIMHASH_PGDIR"' EXIT
fi

# shellcheck disable=SC2086  # METHODS is a list
"$here/run.sh" "$N" ${METHODS:-simhash_mih simhash_mih4}

sql() { psql -X -q -v ON_ERROR_STOP=1 -At -d "$BENCH_DB" "$@"; }
echo
echo "simhash_pairs over $N rows, k = 5, simhash.pairs_memory_limit = $PAIRS_MEMORY:"
sql -c "SET simhash.pairs_memory_limit = '$PAIRS_MEMORY'" -c "SET work_mem = '256MB'" -c "
    DO \$\$
    DECLARE t0 timestamptz := clock_timestamp(); pairs bigint;
    BEGIN
        SELECT count(*) INTO pairs FROM simhash_pairs('SELECT id, sh FROM bench_table', 5);
        RAISE NOTICE '% pairs in % s on % threads', pairs,
            round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1),
            current_setting('simhash.job_threads');
    END \$\$" 2>&1 | sed 's/^NOTICE:  //'
