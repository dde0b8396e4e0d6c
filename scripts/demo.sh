#!/usr/bin/env bash
# The demo: installs what is missing, builds and installs simhash, starts a throwaway PostgreSQL
# server, runs demo/examples.sql against it, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi

scripts/install-deps.sh
export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
export PATH="$($PG_CONFIG --bindir):$PATH"
export PG_BINDIR=$($PG_CONFIG --bindir)

echo "== building and installing simhash"
make -s -j2 >/dev/null
make -s install >/dev/null

echo "== starting a throwaway PostgreSQL server"
eval "$(scripts/pgtmp.sh start)"
trap 'scripts/pgtmp.sh stop "$SIMHASH_PGDIR"' EXIT

psql -X -q -v ON_ERROR_STOP=1 -f demo/examples.sql
