#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and the demo, run as the `postgres` OS user.
#
#   eval "$(scripts/pgtmp.sh start)"   # prints export lines: PGHOST PGPORT PGUSER PGDATABASE SIMHASH_PGDIR
#   scripts/pgtmp.sh stop "$SIMHASH_PGDIR"
#
# The server listens on a Unix socket in its own directory plus 127.0.0.1 on a free port, with
# trust authentication: it is for local tests only and is deleted on stop.
set -euo pipefail

PG_BINDIR=${PG_BINDIR:-$(pg_config --bindir)}
RUN_AS=${SIMHASH_PG_OS_USER:-postgres}

as_pg() {
    if [ "$(id -un)" = "$RUN_AS" ]; then "$@"; else runuser -u "$RUN_AS" -- "$@"; fi
}

port_in_use() {
    ss -Htln "sport = :$1" 2>/dev/null | grep -q . || [ -e "/tmp/.s.PGSQL.$1" ]
}

start() {
    local dir port
    dir=$(mktemp -d "${TMPDIR:-/tmp}/simhash-pg.XXXXXX")
    chmod 755 "$dir"
    chown "$RUN_AS" "$dir"
    as_pg "$PG_BINDIR/initdb" -D "$dir/data" -U postgres --auth=trust --no-instructions \
        -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    for _ in $(seq 1 50); do
        port=$((20000 + RANDOM % 30000))
        port_in_use "$port" && continue
        if as_pg "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_worker_processes=8 ${SIMHASH_PG_OPTS:-}" \
            start >/dev/null; then
            echo "export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres SIMHASH_PGDIR=$dir"
            return 0
        fi
    done
    echo "pgtmp: could not start a server (see $dir/server.log)" >&2
    exit 1
}

stop() {
    local dir=${1:?usage: pgtmp.sh stop DIR}
    [ -d "$dir/data" ] || { echo "pgtmp: $dir is not a server directory" >&2; exit 1; }
    as_pg "$PG_BINDIR/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
