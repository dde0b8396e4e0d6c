#!/usr/bin/env bash
# Runs TAP test files (t/*.pl, PostgreSQL::Test::Cluster) against the PostgreSQL that PG_CONFIG
# names (default: the host's, from scripts/pg_versions.conf), as the postgres OS user (initdb
# refuses root) on a copy of t/ that user can write. Builds and installs the extension first.
#   scripts/tap.sh t/010_index_runs.pl [t/...]   # these files
#   scripts/tap.sh                               # every file
#   scripts/tap.sh --every-major                 # the files marked "# On every major:" (their
#                                                # behaviour depends on the server's version)
#   --installed: test what is installed (a package), build nothing.
#   SIMHASH_TAP_JOBS=N runs N files at once (prove -j; default 1).
# Prints prove's output, then, for a file that failed or died, the end of its own log; the last line
# is "N passed, M failed" (subtests). Logs stay in $SIMHASH_TAP_DIR (default: a new temporary dir).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi

installed= every_major= files=()
for a in "$@"; do
    case $a in
        --installed) installed=1 ;;
        --every-major) every_major=1 ;;
        *) files+=("$a") ;;
    esac
done
if [ -n "$every_major" ]; then
    mapfile -t files < <(grep -l '^# On every major:' t/*.pl | sort)
fi
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(ls t/*.pl | sort)

if [ -z "${PG_CONFIG:-}" ]; then
    PG_CONFIG=/usr/lib/postgresql/$(awk '$2 == "host" { print $1 }' scripts/pg_versions.conf)/bin/pg_config
fi
bindir=$("$PG_CONFIG" --bindir)
pgxs=$(dirname "$("$PG_CONFIG" --pgxs)")/../..

if [ -z "$installed" ]; then
    [ "${SIMHASH_SKIP_DEPS:-}" = 1 ] || scripts/install-deps.sh || exit 1
    make -s -j2 PG_CONFIG="$PG_CONFIG" || exit 1
    # The shared PostgreSQL tree holds one build at a time: hold it while installing and testing.
    exec 9>/tmp/simhash-install.lock
    flock 9
    make -s install PG_CONFIG="$PG_CONFIG" >/dev/null || exit 1
fi

dir=${SIMHASH_TAP_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/simhash-tap.XXXXXX")}
mkdir -p "$dir"
rm -rf "$dir/t" "$dir/tmp_check"
cp -r t "$dir/"
chown -R postgres "$dir"
chmod 755 "$dir"
(cd "$dir" && runuser -u postgres -- env PATH="$bindir:$PATH" TESTDIR="$dir" \
    PG_REGRESS="$pgxs/src/test/regress/pg_regress" \
    prove --timer -j "${SIMHASH_TAP_JOBS:-1}" -I "$pgxs/src/test/perl/" -I . "${files[@]}") >"$dir/prove.log" 2>&1
rc=$?
cat "$dir/prove.log"
tests=$(sed -n 's/.*Tests=\([0-9]*\).*/\1/p' "$dir/prove.log" | tail -n1)
bad=$(grep -Eo 'Failed [0-9]+/[0-9]+ subtests' "$dir/prove.log" | awk -F'[ /]' '{s+=$2} END {print s+0}')
tests=${tests:-0}
[ "$rc" != 0 ] && [ "$bad" = 0 ] && bad=1
if [ "$rc" != 0 ]; then
    # prove only counts: the end of a failed file's own log says where and why.
    for f in $(sed -n '/^Test Summary Report/,$ s#^\(t/[^ ]*\)\.pl .*#\1#p' "$dir/prove.log" | sort -u); do
        # tmp_check/log up to PostgreSQL 16, log from 17 on
        for log in "$dir"/tmp_check/log/regress_log_"${f#t/}" "$dir"/log/regress_log_"${f#t/}"; do
            [ -f "$log" ] || continue
            echo "--- the end of $log"
            tail -n 40 "$log"
        done
    done
fi
echo "$((tests - bad < 0 ? 0 : tests - bad)) passed, $bad failed"
exit "$rc"
