#!/usr/bin/env bash
# Every ```sql block of README.md and of doc/*.md runs as written, in order, one fresh database per
# file: the docs' examples cannot drift from the extension. Blocks fenced ```postgresql need a cluster
# (Citus, postgres_fdw shards) and are not run here; t/007_fdw_shards.pl and scripts/citus_cluster.sh run them. README.md creates the extension itself
# (its first block is "Getting started"); for doc/*.md this script does. Needs the server of
# scripts/test.sh (PGHOST, PGPORT).
set -euo pipefail
cd "$(dirname "$0")/../.."

db=doc_examples_$$
blocks=$(mktemp)
trap 'psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db"; rm -f "$blocks"' EXIT

for file in README.md doc/*.md; do
    awk '/^```sql/ { inside = 1; n++; printf "\\echo -- block %d\n", n; next }
         /^```/    { inside = 0 }
         inside' "$file" >"$blocks"
    count=$(grep -c '^\\echo -- block' "$blocks" || true)
    [ "$count" -gt 0 ] || { [ "$file" != README.md ] && continue; echo "no sql blocks in README.md"; exit 1; }
    psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    [ "$file" = README.md ] || psql -X -q -d "$db" -c "CREATE EXTENSION simhash"
    if ! psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$blocks" >/dev/null; then
        echo "an sql block of $file failed (see the error above)"
        exit 1
    fi
    echo "all $count sql blocks of $file ran without error"
done
