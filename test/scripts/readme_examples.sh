#!/usr/bin/env bash
# Every ```sql block of README.md and of doc/*.md runs as written, in order, one fresh database per
# file, and where the docs show what a block prints (a ```text block right after it, as psql prints
# it: aligned, with headers and row counts) it prints exactly that: the docs' examples and their
# results cannot drift from the extension. Trailing spaces and blank lines do not count. Blocks
# fenced ```postgresql need a cluster (Citus, postgres_fdw shards) and are not run here;
# t/007_fdw_shards.pl and scripts/citus_cluster.sh run them. README.md creates the extension itself
# (its first block is "Getting started"); for doc/*.md this script does. Needs the server of
# scripts/test.sh (PGHOST, PGPORT).
#
#   test/scripts/readme_examples.sh [--print]   --print: show what each block prints (to write the docs)
set -euo pipefail
cd "$(dirname "$0")/../.."

print=0
[ "${1:-}" = --print ] && print=1
db=doc_examples_$$
work=$(mktemp -d)
trap 'psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db"; rm -rf "$work"' EXIT

# Without trailing spaces and trailing blank lines.
normalize() { sed -e 's/[[:space:]]*$//' "$1" | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'; }

failures=0
for file in README.md doc/*.md; do
    rm -rf "$work/shown" "$work/printed"
    mkdir "$work/shown" "$work/printed"
    # blocks.sql: the sql blocks, each after a marker line psql echoes; shown/N: what block N is
    # shown to print.
    awk -v shown="$work/shown" '
        /^```sql/          { inside = 1; n++; after = 0; printf "\\echo -- block %d\n", n; next }
        /^```text/ && after { output = shown "/" after; printf "" > output; showing = 1; after = 0; next }
        /^```/             { if (inside) after = n; else after = 0; inside = 0; showing = 0; next }
        inside             { print; next }
        showing            { print >> output; next }
        /^[[:space:]]*$/   { next }
                           { after = 0 }' "$file" >"$work/blocks.sql"
    count=$(grep -c '^\\echo -- block' "$work/blocks.sql" || true)
    [ "$count" -gt 0 ] || { [ "$file" != README.md ] && continue; echo "no sql blocks in README.md"; exit 1; }
    psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    [ "$file" = README.md ] || psql -X -q -d "$db" -c "CREATE EXTENSION simhash"
    if ! psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$work/blocks.sql" >"$work/out.txt"; then
        echo "an sql block of $file failed (see the error above)"
        exit 1
    fi
    awk -v printed="$work/printed" '/^-- block [0-9]+$/ { out = printed "/" $3; printf "" > out; next }
                                    { print >> out }' "$work/out.txt"
    compared=0
    for n in $(seq 1 "$count"); do
        if [ "$print" = 1 ]; then
            printf '\n%s, sql block %d prints:\n' "$file" "$n"; cat "$work/printed/$n"
        fi
        [ -f "$work/shown/$n" ] || continue
        compared=$((compared + 1))
        if ! diff -u --label "$file, sql block $n: shown" --label "printed" \
                <(normalize "$work/shown/$n") <(normalize "$work/printed/$n"); then
            failures=$((failures + 1))
        fi
    done
    echo "all $count sql blocks of $file ran without error; $compared print what the file shows"
done
if [ "$failures" != 0 ]; then
    echo "$failures sql blocks print other than the docs show (diffs above)"
    exit 1
fi
