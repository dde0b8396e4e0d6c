#!/usr/bin/env bash
# Every ```sql block of README.md runs as written, in order, in one fresh database: the docs'
# examples cannot drift from the extension. Needs the server of scripts/test.sh (PGHOST, PGPORT).
set -euo pipefail
cd "$(dirname "$0")/../.."

db=readme_examples_$$
psql -X -q -d postgres -c "CREATE DATABASE $db"
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"' EXIT

blocks=$(mktemp)
awk '/^```sql/ { inside = 1; n++; printf "\\echo -- README block %d\n", n; next }
     /^```/    { inside = 0 }
     inside' README.md >"$blocks"
count=$(grep -c '^\\echo -- README block' "$blocks")
[ "$count" -gt 0 ] || { echo "no sql blocks found in README.md"; exit 1; }

psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$blocks" >/dev/null
echo "all $count sql blocks of README.md ran without error"
rm -f "$blocks"
