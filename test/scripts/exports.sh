#!/usr/bin/env bash
# The installed library exports PostgreSQL's entry points and nothing else: the module magic,
# _PG_init, for each SQL-callable function the function and its pg_finfo_ record, and each
# background worker's main function. A C++ symbol
# of the core or a helper of the glue (integer_value, check_pairs_memory, ...) would be visible to
# every other library loaded into the backend, where a name in common could bind to the wrong one.
# Every C symbol that any install script (this version's and the frozen older ones) names must be
# among the exports.
# Runs once: the symbols come from the build's version script, not from the server.
set -euo pipefail
cd "$(dirname "$0")/../.."

lib="$(pg_config --pkglibdir)/simhash.so"
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
echo "$(echo "$exported" | wc -l) symbols exported by $lib"

# Background workers' entry points, which the postmaster finds by name.
workers=$(sed -n 's/^PGDLLEXPORT void \([A-Za-z0-9_]*\)(Datum arg);/\1/p' src/pg/*/*.c src/pg/index_am/*/*.c)

bad=0
while read -r sym; do
    grep -qx "$sym" <<<"$workers" && continue
    case $sym in
        Pg_magic_func|_PG_init) ;;
        pg_finfo_*) grep -qx "${sym#pg_finfo_}" <<<"$exported" || { echo "pg_finfo without its function: $sym"; bad=1; } ;;
        *) grep -qx "pg_finfo_$sym" <<<"$exported" || { echo "exported but not an entry point: $sym"; bad=1; } ;;
    esac
done <<<"$exported"

# C functions named by install scripts: AS 'MODULE_PATHNAME', 'symbol' or, without a symbol, the
# SQL name. Comments are dropped and the scripts split into one line per statement first.
named=$(sed "s/--.*$//" "$(pg_config --sharedir)"/extension/simhash--*.sql | tr '\n' ' ' | tr ';' '\n' \
    | grep -E "LANGUAGE C|MODULE_PATHNAME" | grep -E "^ *CREATE (OR REPLACE )?FUNCTION" \
    | sed -E "s/^ *CREATE (OR REPLACE )?FUNCTION ([A-Za-z0-9_.]+)\(.*AS 'MODULE_PATHNAME'(, *'([A-Za-z0-9_]+)')?.*/\2 \4/" \
    | awk '{ if ($2 != "") print $2; else { n = $1; sub(/.*\./, "", n); print n } }' | sort -u)
echo "$(echo "$named" | wc -l) C symbols named by the install scripts"
for sym in $named; do
    grep -qx "$sym" <<<"$exported" || { echo "named by an install script but not exported: $sym"; bad=1; }
done
[ "$bad" = 0 ] && echo "exports: only entry points, and every named one"
exit "$bad"
