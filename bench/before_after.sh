#!/usr/bin/env bash
# The library of an older commit against this tree's, in one run: builds OLD in a temporary git
# worktree, then swaps the two libraries into one server in turns (old, new, then new, old; the
# server restarted at each swap, so no backend or merge worker keeps the other library) and runs
# the index benchmark (bench/run.sh N simhash_mih) each turn; then the ingestion benchmark
# (bench/ingest.sh N 2 T 30 at RATE=3000) once with each. For changes that keep the install script
# and the on-disk format (a refactoring): the extension's SQL is this tree's for both.
#
#   bench/before_after.sh OLD_COMMIT [N] [T]     e.g. bench/before_after.sh 0e98ab3 1000000 120
#
# Needs this tree built and installed (make install) and runs as root: it owns the installed library
# for the whole run (holding the lock that test runs take to install and test, /tmp/simhash-install.lock),
# swaps it with mv, never cp (a cp rewrites pages that running servers have mapped: they die of
# SIGBUS), and puts this tree's back at the end. Writes its results to OUT (default a temporary
# directory, printed): run-TURN-BUILD.tsv (bench/run.sh's BENCH_RESULTS) and ingest-BUILD.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/.." && pwd)
old=${1:?usage: bench/before_after.sh OLD_COMMIT [N] [T]}
N=${2:-1000000}
T=${3:-120}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
lib="$(pg_config --pkglibdir)/simhash.so"
[ -f "$tree/simhash.so" ] || { echo "build this tree first (make && make install)" >&2; exit 1; }

exec 9>/tmp/simhash-install.lock
flock 9
put() { cp "$OUT/$1.so" "$lib.tmp" && mv "$lib.tmp" "$lib"; }

src=$(mktemp -d)
cleanup() {
    put new 2>/dev/null || true
    [ -n "${SIMHASH_PGDIR:-}" ] && "$tree/scripts/pgtmp.sh" stop "$SIMHASH_PGDIR"
    git -C "$tree" worktree remove --force "$src/old" 2>/dev/null || true
    rm -rf "$src"
}
trap cleanup EXIT
git -C "$tree" worktree add --detach "$src/old" "$old" >/dev/null
make -C "$src/old" -s -j2 with_llvm=no >/dev/null
cp "$src/old/simhash.so" "$OUT/old.so"
cp "$tree/simhash.so" "$OUT/new.so"

eval "$("$tree/scripts/pgtmp.sh" start)"
export PGHOST PGPORT PGUSER PGDATABASE
use() {
    put "$1"
    runuser -u postgres -- "$(pg_config --bindir)/pg_ctl" -D "$SIMHASH_PGDIR/data" -w restart \
        -l "$SIMHASH_PGDIR/server.log" >/dev/null
}
for turn in 1 2; do
    order="old new"; [ "$turn" = 2 ] && order="new old"
    for build in $order; do
        use "$build"
        echo "== turn $turn: $build"
        PASSES=3 NQ=200 BUDGET_S=5 BENCH_RESULTS="$OUT/run-$turn-$build.tsv" \
            "$here/run.sh" "$N" simhash_mih >"$OUT/run-$turn-$build.log" 2>&1
        grep '^simhash_mih' "$OUT/run-$turn-$build.tsv"
    done
done
"$tree/scripts/pgtmp.sh" stop "$SIMHASH_PGDIR"
SIMHASH_PGDIR=

for build in old new; do
    put "$build"
    echo "== ingest: $build"
    RATE=3000 NQ=50 "$here/ingest.sh" "$N" 2 "$T" 30 >"$OUT/ingest-$build.log" 2>&1
    grep -E '^(inserts/s|write amplification|index size|the grown index)' "$OUT/ingest-$build.log"
    sed -n '/^| query set | median sample/,/^$/p' "$OUT/ingest-$build.log"
done
echo "results: $OUT"
