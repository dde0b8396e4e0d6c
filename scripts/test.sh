#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this):
#   build with warnings as errors; core unit tests plain and under ASan+UBSan; core fuzz targets
#   briefly; a throwaway PostgreSQL 15 server (as the postgres OS user) for pg_regress and the
#   scripted SQL tests; the TAP tests; the demo; the other PostgreSQL majors of
#   scripts/pg_versions.conf in their Debian roots; then a last line "N passed, M failed, K skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi

scripts/install-deps.sh || exit 1
# The host's own PostgreSQL major (Debian 12's) comes from the one list of majors.
host_major=$(awk '$2 == "host" { print $1 }' scripts/pg_versions.conf)
export PG_CONFIG=/usr/lib/postgresql/$host_major/bin/pg_config
export PATH="$($PG_CONFIG --bindir):$PATH"
export PG_BINDIR=$($PG_CONFIG --bindir)

passed=0
failed=0
skipped=0
failures=()
skips=()
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/simhash-test.XXXXXX")
chmod 755 "$log_dir"

count() { passed=$((passed + $1)); failed=$((failed + $2)); [ "$2" = 0 ] || failures+=("$3"); }
skip() { skipped=$((skipped + $1)); skips+=("$2"); }
banner() { printf '\n=== %s ===\n' "$*"; }

finish() {
    [ -n "${SIMHASH_PGDIR:-}" ] && scripts/pgtmp.sh stop "$SIMHASH_PGDIR"
    echo
    [ ${#skips[@]} = 0 ] || printf 'skipped: %s\n' "${skips[@]}"
    if [ ${#failures[@]} = 0 ]; then rm -rf "$log_dir"; else printf 'failed: %s\n' "${failures[@]}"; echo "logs: $log_dir"; fi
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ]
    exit $?
}

# A gtest binary's own summary gives the counts (GTEST_SKIP tests are skips); a crash counts as one
# failure.
run_gtest() {
    local name=$1 bin=$2
    local out="$log_dir/${name// /_}.log"
    banner "$name"
    "$bin" --gtest_brief=1 >"$out" 2>&1
    local rc=$?
    tail -n 30 "$out"
    local p f s
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
    p=${p:-0}; f=${f:-0}
    [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
    count "$p" "$f" "$name"
    [ "${s:-0}" = 0 ] || skip "$s" "$name"
}

banner "build (warnings are errors)"
if ! make -s -j2 WERROR=1 all core-test core-test-asan; then
    count 0 1 build
    finish
fi

run_gtest "core unit tests" ./core-test
run_gtest "core unit tests (ASan+UBSan)" ./core-test-asan

if grep -q '^fuzz-check:' Makefile; then
    banner "fuzz targets"
    if make -s fuzz-check; then count 1 0 fuzz; else count 0 1 fuzz; fi
fi

# Installing into the shared PostgreSQL tree and testing against it is one critical section, so
# that concurrent test runs on one machine never test each other's build.
exec 9>/tmp/simhash-install.lock
flock 9

banner "install"
if ! make -s install >/dev/null; then
    count 0 1 install
    finish
fi

banner "start a throwaway PostgreSQL server"
if ! env_lines=$(scripts/pgtmp.sh start); then
    count 0 1 "server start"
    finish
fi
eval "$env_lines"
echo "server on port $PGPORT (socket in $PGHOST)"

banner "pg_regress"
make -s installcheck TAP_TESTS= >"$log_dir/regress.log" 2>&1
cat "$log_dir/regress.log" | grep -vE '^(\+\+\+|=+$|$)' | tail -n 80
total=$(grep -Eo 'All [0-9]+ tests passed' "$log_dir/regress.log" | grep -Eo '[0-9]+')
if [ -n "$total" ]; then
    count "$total" 0 pg_regress
else
    bad=$(grep -Eo '[0-9]+ of [0-9]+ tests failed' "$log_dir/regress.log" | head -n1)
    if [ -n "$bad" ]; then
        f=${bad%% of*}; t=$(echo "$bad" | awk '{print $3}')
        count $((t - f)) "$f" pg_regress
    else
        count 0 1 pg_regress
    fi
    [ -f regression.diffs ] && head -n 200 regression.diffs
fi

# Scripted tests that need the running server and tools beyond psql (pg_dump, a browser, ...).
# Exit status 0 is a pass, 77 a skip (what the test needs is not installed), anything else a failure.
for t in $(ls test/scripts/*.sh 2>/dev/null | sort); do
    banner "$t"
    bash "$t" >"$log_dir/$(basename "$t").log" 2>&1
    rc=$?
    if [ "$rc" = 0 ]; then
        tail -n 5 "$log_dir/$(basename "$t").log"
        count 1 0 "$t"
    elif [ "$rc" = 77 ]; then
        tail -n 5 "$log_dir/$(basename "$t").log"
        skip 1 "$t"
    else
        tail -n 40 "$log_dir/$(basename "$t").log"
        count 0 1 "$t"
    fi
done

scripts/pgtmp.sh stop "$SIMHASH_PGDIR"
SIMHASH_PGDIR=

# TAP tests start their own clusters with initdb, which refuses root: run them as postgres on a
# copy of the tree that user can write (they write tmp_check/ next to the sources).
if ls t/*.pl >/dev/null 2>&1; then
    banner "TAP tests"
    tap_dir="$log_dir/tap"
    mkdir -p "$tap_dir"
    cp -r t "$tap_dir/"
    chown -R postgres "$tap_dir"
    pgxs_dir=$(dirname "$($PG_CONFIG --pgxs)")/../..
    (cd "$tap_dir" && runuser -u postgres -- env PATH="$PATH" TESTDIR="$tap_dir" \
        PG_REGRESS="$pgxs_dir/src/test/regress/pg_regress" \
        prove -I "$pgxs_dir/src/test/perl/" -I . t/*.pl) >"$log_dir/tap.log" 2>&1
    rc=$?
    cat "$log_dir/tap.log"
    tests=$(sed -n 's/.*Tests=\([0-9]*\).*/\1/p' "$log_dir/tap.log" | tail -n1)
    bad=$(grep -Eo 'Failed [0-9]+/[0-9]+ subtests' "$log_dir/tap.log" | awk -F'[ /]' '{s+=$2} END {print s+0}')
    tests=${tests:-0}
    [ "$rc" != 0 ] && [ "$bad" = 0 ] && bad=1
    count $((tests - bad < 0 ? 0 : tests - bad)) "$bad" TAP
    # A file that failed or died: the end of its own log says where and why (prove only counts).
    if [ "$rc" != 0 ]; then
        for f in $(sed -n '/^Test Summary Report/,$ s#^\(t/[^ ]*\)\.pl .*#\1#p' "$log_dir/tap.log" | sort -u); do
            echo "--- the end of tmp_check/log/regress_log_${f#t/}"
            tail -n 40 "$tap_dir/tmp_check/log/regress_log_${f#t/}" 2>/dev/null
        done
    fi
fi

# The README's first command, as a newcomer runs it: it must exit 0 and write both heat maps as
# non-empty PNGs (the pages stay cached in /var/tmp/simhash-demo between runs on one machine).
banner "the demo (scripts/demo.sh)"
demo_out="$log_dir/demo-out"
if SIMHASH_DEMO_OUT="$demo_out" scripts/demo.sh >"$log_dir/demo.log" 2>&1; then
    tail -n 8 "$log_dir/demo.log"
    if scripts/check_demo_out.sh "$demo_out"; then count 1 0 demo; else count 0 1 demo; fi
else
    tail -n 40 "$log_dir/demo.log"
    count 0 1 demo
fi
# The demo's check of the crawl dashboard (dashboards/run.sh) ends with "N passed, M failed".
dashboard=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log_dir/demo.log" | tail -n1)
if [ -n "$dashboard" ]; then
    count "$(echo "$dashboard" | awk '{print $1}')" "$(echo "$dashboard" | awk '{print $3}')" "crawl dashboard"
elif [ "${SIMHASH_DASHBOARD:-1}" = 0 ]; then
    echo "crawl dashboard: skipped (SIMHASH_DASHBOARD=0)"; skip 1 "crawl dashboard"
else
    count 0 1 "crawl dashboard"
fi

# A step's log ends with "N passed, M failed[, K skipped]": count it under name.
count_log() {
    local log=$1 name=$2 line p f s
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n1)
    p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}'); s=$(echo "$line" | awk '{print $5}')
    [ -n "$line" ] || { p=0; f=1; }
    count "${p:-0}" "${f:-1}" "$name"
    [ "${s:-0}" = 0 ] || skip "$s" "$name"
}

# The other PostgreSQL majors of scripts/pg_versions.conf, each in its own Debian root, then every
# major's Debian package, tested installed in a root without a compiler or this tree.
# SIMHASH_PG_MAJORS="17 18" limits the run to those majors (the host's suite always runs).
while read -r major suite what; do
    case $major in ''|\#*|pg_upgrade) continue ;; esac
    [ -n "${SIMHASH_PG_MAJORS:-}" ] && [[ " $SIMHASH_PG_MAJORS " != *" $major "* ]] && continue
    if [ "$suite" != host ]; then
        banner "PostgreSQL $major ($suite root): ${what/package/}"
        scripts/test_major.sh "$major" "$suite" ${what/package/} </dev/null >"$log_dir/pg$major.log" 2>&1
        tail -n 40 "$log_dir/pg$major.log"
        count_log "$log_dir/pg$major.log" "PostgreSQL $major"
    fi
    if [[ " $what " == *" package "* ]]; then
        banner "package postgresql-$major-simhash: build, install where nothing builds, pg_regress"
        log="$log_dir/package$major.log"
        if scripts/package.sh "$major" "$suite" "$log_dir/packages" </dev/null >"$log" 2>&1; then
            scripts/test_package.sh "$major" "$suite" "$(ls "$log_dir"/packages/postgresql-"$major"-simhash_*.deb)" \
                </dev/null >>"$log" 2>&1
        else
            echo "0 passed, 1 failed" >>"$log"
        fi
        tail -n 12 "$log"
        count_log "$log" "package for PostgreSQL $major"
    fi
done < scripts/pg_versions.conf

# pg_upgrade between two majors of the list, with the packages built above.
suite_of() { awk -v m="$1" '$1 == m { print $2 }' scripts/pg_versions.conf; }
while read -r _ from to; do
    from_deb=$(ls "$log_dir"/packages/postgresql-"$from"-simhash_*.deb 2>/dev/null)
    to_deb=$(ls "$log_dir"/packages/postgresql-"$to"-simhash_*.deb 2>/dev/null)
    [ -n "$from_deb" ] && [ -n "$to_deb" ] || continue
    banner "pg_upgrade from PostgreSQL $from to $to"
    scripts/test_pg_upgrade.sh "$from" "$(suite_of "$from")" "$from_deb" "$to" "$(suite_of "$to")" "$to_deb" \
        </dev/null >"$log_dir/pg_upgrade$from-$to.log" 2>&1
    tail -n 16 "$log_dir/pg_upgrade$from-$to.log"
    count_log "$log_dir/pg_upgrade$from-$to.log" "pg_upgrade from $from to $to"
done < <(grep '^pg_upgrade' scripts/pg_versions.conf)

finish
