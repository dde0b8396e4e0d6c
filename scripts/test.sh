#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this):
#   on the host (Debian 12's PostgreSQL), once: the build with warnings as errors, the core's unit
#   tests plain and under ASan+UBSan, its fuzz targets briefly, pg_regress and the scripted SQL tests
#   against a throwaway server (as the postgres OS user), every TAP file, the demo;
#   for every major of scripts/pg_versions.conf: its Debian package, built once (warnings are errors)
#   and tested installed: pg_regress where nothing builds, and, in the major's root, what of the
#   suite depends on the server's version (scripts/test_major.sh); then pg_upgrade between majors.
# The roots of the other majors and the dashboard's npm packages are fetched in the background
# while the host's tests run. The run ends with a table of each part's time and the line
# "N passed, M failed, K skipped".
#   scripts/test.sh            # the whole suite
#   scripts/test.sh --quick    # the build, the core's unit tests and pg_regress on the host's
#                              # PostgreSQL: the developer's loop (a few minutes)
# SIMHASH_PG_MAJORS="17 18" limits the other majors to those (the host's suite always runs).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi
quick=
[ "${1:-}" = --quick ] && quick=1

log_dir=$(mktemp -d "${TMPDIR:-/tmp}/simhash-test.XXXXXX")
chmod 755 "$log_dir"

# Each part's time, for the table at the end: part NAME closes the part before it.
parts=()
part_name= part_start=
part() {
    local now
    now=$(date +%s)
    [ -n "$part_name" ] && parts+=("$(printf '%-58s %6d s' "$part_name" $((now - part_start)))")
    part_name=$1 part_start=$now
    [ -n "$part_name" ] && printf '\n=== %s ===\n' "$part_name"
}
suite_start=$(date +%s)

part "dependencies (apt)"
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
background=()

count() { passed=$((passed + $1)); failed=$((failed + $2)); [ "$2" = 0 ] || failures+=("$3"); }
skip() { skipped=$((skipped + $1)); skips+=("$2"); }

finish() {
    part ""
    [ -n "${SIMHASH_PGDIR:-}" ] && scripts/pgtmp.sh stop "$SIMHASH_PGDIR"
    local pid
    for pid in "${background[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    echo
    echo "time of each part:"
    printf '  %s\n' "${parts[@]}"
    printf '  %-58s %6d s\n' "in all" $(( $(date +%s) - suite_start ))
    echo
    [ ${#skips[@]} = 0 ] || printf 'skipped: %s\n' "${skips[@]}"
    if [ ${#failures[@]} = 0 ]; then rm -rf "$log_dir"; else printf 'failed: %s\n' "${failures[@]}"; echo "logs: $log_dir"; fi
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ]
    exit $?
}

# A step's log ends with "N passed, M failed[, K skipped]": count it under name.
count_log() {
    local log=$1 name=$2 line p f s
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n1)
    p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}'); s=$(echo "$line" | awk '{print $5}')
    [ -n "$line" ] || { p=0; f=1; }
    count "${p:-0}" "${f:-1}" "$name"
    [ "${s:-0}" = 0 ] || skip "$s" "$name"
}

# What the host's tests do not need yet is fetched meanwhile: the other majors' roots (downloads and
# unpacking, little CPU) and the dashboard's npm packages. Their logs are read when they are needed.
if [ -z "$quick" ]; then
    scripts/prepare_roots.sh ${SIMHASH_PG_MAJORS:+$host_major $SIMHASH_PG_MAJORS} >"$log_dir/roots.log" 2>&1 &
    roots_pid=$!
    background+=("$roots_pid")
    dashboards/npm_packages.sh >"$log_dir/npm.log" 2>&1 &
    npm_pid=$!
    background+=("$npm_pid")
fi

# A gtest binary's own summary gives the counts (GTEST_SKIP tests are skips); a crash counts as one
# failure.
run_gtest() {
    local name=$1 bin=$2
    local out="$log_dir/${name// /_}.log"
    part "$name"
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

part "build (warnings are errors)"
if ! make -s -j2 WERROR=1 all core-test $([ -n "$quick" ] || echo core-test-asan); then
    count 0 1 build
    finish
fi

run_gtest "core unit tests" ./core-test
if [ -z "$quick" ]; then
    run_gtest "core unit tests (ASan+UBSan)" ./core-test-asan
    part "fuzz targets"
    if make -s fuzz-check; then count 1 0 fuzz; else count 0 1 fuzz; fi
fi

# Installing into the shared PostgreSQL tree and testing against it is one critical section, so
# that concurrent test runs on one machine never test each other's build.
part "install (after other runs' tests), start a server"
exec 9>/tmp/simhash-install.lock
flock 9
if ! make -s install >/dev/null; then
    count 0 1 install
    finish
fi
if ! env_lines=$(scripts/pgtmp.sh start); then
    count 0 1 "server start"
    finish
fi
eval "$env_lines"
echo "server on port $PGPORT (socket in $PGHOST)"

part "pg_regress"
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
[ -z "$quick" ] || finish

# Scripted tests that need the running server and tools beyond psql (pg_dump, a browser, ...).
# Exit status 0 is a pass, 77 a skip (what the test needs is not installed), anything else a failure.
for t in $(ls test/scripts/*.sh 2>/dev/null | sort); do
    part "$t"
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

# Every TAP file, against what was installed above; two at once, as their time goes mostly to
# waiting for standbys, recoveries and the merge worker (on a fresh machine, 16 files one at a time: 492 s;
# 17 files two at once: 288 s).
part "TAP tests (every file)"
SIMHASH_TAP_JOBS=2 SIMHASH_TAP_DIR="$log_dir/tap" scripts/tap.sh --installed >"$log_dir/tap.log" 2>&1
cat "$log_dir/tap.log"
count_log "$log_dir/tap.log" TAP

# The README's first command, as a newcomer runs it: it must exit 0 and write both heat maps as
# non-empty PNGs (the pages stay cached in /var/tmp/simhash-demo between runs on one machine).
part "the demo (scripts/demo.sh) and the crawl dashboard"
wait "$npm_pid"
cat "$log_dir/npm.log"
demo_out="$log_dir/demo-out"
if SIMHASH_INSTALL_LOCKED=1 SIMHASH_DEMO_OUT="$demo_out" scripts/demo.sh >"$log_dir/demo.log" 2>&1; then
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
# The shared tree is the demo's now; the other majors test their packages in their own roots.
flock -u 9

part "waiting for the other majors' roots"
wait "$roots_pid" || echo "making the roots failed: each major's own call will try again"
cat "$log_dir/roots.log"

# Every major's Debian package, built once (in the major's root, but the host's) and tested
# installed: pg_regress in a root without a compiler or this tree, then, in the major's root, what
# its line of scripts/pg_versions.conf names (scripts/test_major.sh).
while read -r major suite what; do
    case $major in ''|\#*|pg_upgrade) continue ;; esac
    [ -n "${SIMHASH_PG_MAJORS:-}" ] && [ "$suite" != host ] && [[ " $SIMHASH_PG_MAJORS " != *" $major "* ]] && continue
    part "PostgreSQL $major: the package, pg_regress where nothing builds"
    log="$log_dir/package$major.log"
    if SIMHASH_WERROR=1 scripts/package.sh "$major" "$suite" "$log_dir/packages" </dev/null >"$log" 2>&1; then
        deb=$(ls "$log_dir"/packages/postgresql-"$major"-simhash_*.deb)
        scripts/test_package.sh "$major" "$suite" "$deb" </dev/null >>"$log" 2>&1
    else
        deb=
        echo "0 passed, 1 failed" >>"$log"
    fi
    tail -n 12 "$log"
    count_log "$log" "package for PostgreSQL $major"
    tests=${what/package/}
    if [ "$suite" != host ] && [ -n "${tests// /}" ]; then
        part "PostgreSQL $major ($suite root):$tests"
        if [ -n "$deb" ]; then
            # Its TAP files spend most of their time waiting for standbys and recoveries: two at once.
            SIMHASH_TAP_JOBS=2 scripts/test_major.sh "$major" "$suite" "$deb" $tests </dev/null >"$log_dir/pg$major.log" 2>&1
        else
            echo "no package to test" >"$log_dir/pg$major.log"
        fi
        tail -n 40 "$log_dir/pg$major.log"
        count_log "$log_dir/pg$major.log" "PostgreSQL $major"
    fi
done < scripts/pg_versions.conf

# pg_upgrade between two majors of the list, with the packages built above.
suite_of() { awk -v m="$1" '$1 == m { print $2 }' scripts/pg_versions.conf; }
while read -r _ from to; do
    from_deb=$(ls "$log_dir"/packages/postgresql-"$from"-simhash_*.deb 2>/dev/null)
    to_deb=$(ls "$log_dir"/packages/postgresql-"$to"-simhash_*.deb 2>/dev/null)
    [ -n "$from_deb" ] && [ -n "$to_deb" ] || continue
    part "pg_upgrade from PostgreSQL $from to $to"
    scripts/test_pg_upgrade.sh "$from" "$(suite_of "$from")" "$from_deb" "$to" "$(suite_of "$to")" "$to_deb" \
        </dev/null >"$log_dir/pg_upgrade$from-$to.log" 2>&1
    tail -n 16 "$log_dir/pg_upgrade$from-$to.log"
    count_log "$log_dir/pg_upgrade$from-$to.log" "pg_upgrade from $from to $to"
done < <(grep '^pg_upgrade' scripts/pg_versions.conf)

finish
