#!/usr/bin/env bash
# The index benchmark (bench/run.sh) on two PostgreSQL majors in one run, to see whether a major
# is slower: first on this machine's PostgreSQL with the extension installed there (PG_CONFIG,
# default Debian 12's 15), then on MAJOR inside its Debian root (scripts/pgroot.sh), where this tree
# is built and installed first. Same workload, same server settings; prints each run's table, then
# per method and query set the p50 of both and their ratio.
#
#   sudo bench/majors.sh N MAJOR SUITE [METHOD...]    e.g. bench/majors.sh 1000000 18 forky simhash_mih
#
# Environment as bench/run.sh (NQ, KS, BUDGET_S, SEED, SIMHASH_WORKLOAD), passed to both runs, and
# SIMHASH_PG_OPTS for both servers (default shared_buffers = 2GB, as in doc/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench/majors.sh N MAJOR SUITE [METHOD...]"
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
N=${1:?$usage}
major=${2:?$usage}
suite=${3:?$usage}
shift 3
export SIMHASH_PG_OPTS=${SIMHASH_PG_OPTS:--c shared_buffers=2GB}
host_config=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
host_major=$("$host_config" --version | awk '{ print int($2) }')

results=$(mktemp -d)
build=/tmp/simhash-bench-build
root=$(scripts/pgroot.sh "$major" "$suite")
. scripts/root_mounts.sh
mount_root "$root"
trap 'unmount_root; rm -rf "$results" "$root$build" "$root/tmp/simhash-bench-results.tsv"' EXIT

echo "== PostgreSQL $host_major on this machine"
PATH="$("$host_config" --bindir):$PATH" PG_BINDIR=$("$host_config" --bindir) BENCH_RESULTS="$results/host.tsv" \
    bench/run.sh "$N" "$@"

echo
echo "== PostgreSQL $major in its $suite root"
rm -rf "${root:?}$build"
mkdir -p "$root$build"
git ls-files -co --exclude-standard -z | tar -c --null -T - | tar -x -C "$root$build"
bindir=/usr/lib/postgresql/$major/bin
pass=()
for v in NQ KS BUDGET_S SEED SIMHASH_WORKLOAD SIMHASH_PG_OPTS; do [ -z "${!v:-}" ] || pass+=("$v=${!v}"); done
chroot "$root" env -i PATH="$bindir:/usr/sbin:/usr/bin:/sbin:/bin" HOME=/root "${pass[@]}" PG_BINDIR="$bindir" \
    BENCH_RESULTS=/tmp/simhash-bench-results.tsv bash -c "cd $build &&
        make -s -j2 PG_CONFIG=$bindir/pg_config >/dev/null && make -s install PG_CONFIG=$bindir/pg_config >/dev/null &&
        bench/run.sh \"\$@\"" run.sh "$N" "$@"
cp "$root/tmp/simhash-bench-results.tsv" "$results/root.tsv"

echo
echo "p50 ms on $host_major and on $major, same run; a ratio above 1 means $major is slower:"
echo "| method | query set | $host_major | $major | $major / $host_major |"
echo "|---|---|---|---|---|"
awk -F'\t' 'NR == FNR { p50[$1 FS $2] = $3; next }
            ($1 FS $2) in p50 { b = p50[$1 FS $2]
                                printf "| %s | %s | %s | %s | %s |\n", $1, $2, b, $3, (b > 0 ? sprintf("%.2f", $3 / b) : "-") }' \
    "$results/host.tsv" "$results/root.tsv"
