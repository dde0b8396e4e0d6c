#!/usr/bin/env bash
# Builds and tests simhash against PostgreSQL MAJOR inside its Debian root (scripts/pgroot.sh):
# the build with warnings as errors, then, as the postgres user of the root, pg_regress and the
# scripted tests (test/scripts/*.sh) against a throwaway server, the TAP tests, and the demo
# (scripts/demo.sh). The last line is "N passed, M failed" for this major (", K skipped" after it
# when a scripted test skipped).
#   scripts/test_major.sh MAJOR SUITE [regress] [scripts] [tap] [demo]
set -uo pipefail
cd "$(dirname "$0")/.."
usage="usage: test_major.sh MAJOR SUITE [regress] [scripts] [tap] [demo]"
major=${1:?$usage}
suite=${2:?$usage}
shift 2
what=" $* "

# The scripted tests' clients: psycopg2, JDBC, and Chromium for the heat map (the demo's too).
extra=()
[[ $what == *" scripts "* ]] && extra=(python3 python3-psycopg2 default-jdk-headless libpostgresql-jdbc-java chromium)
[[ $what == *" demo "* ]] && extra+=(chromium)
root=$(scripts/pgroot.sh "$major" "$suite" "${extra[@]}") || { echo "0 passed, 1 failed"; exit 1; }
bindir=/usr/lib/postgresql/$major/bin
pgxs=/usr/lib/postgresql/$major/lib/pgxs

# The tree as it is (tracked and untracked files, no build output) goes to /build in the root.
rm -rf "$root/build" "$root/tmp/simhash-tap"
mkdir -p "$root/build"
git ls-files -co --exclude-standard -z | tar -c --null -T - | tar -x -C "$root/build"
chroot "$root" chown -R postgres /build    # the root's postgres: its uid need not be the host's

# The demo's pages are those of the host's demo, Debian 12's documentation packages, fetched by the
# host's apt into the host's cache (which the root sees at the same path): the same pages on every
# major, and no download when the host's demo ran first.
demo_pages=
if [[ $what == *" demo "* ]]; then
    demo_pages=${SIMHASH_DEMO_DIR:-/var/tmp/simhash-demo}
    demo/fetch_pages.sh "$demo_pages" >/dev/null || { echo "the demo's pages could not be fetched"; echo "0 passed, 1 failed"; exit 1; }
fi

. scripts/root_mounts.sh
mount_root "$root" ${demo_pages:+"$demo_pages"}

in_root() { chroot "$root" runuser -u postgres -- env -i PATH="$bindir:/usr/bin:/bin" HOME=/tmp "$@"; }

passed=0 failed=0
if ! in_root bash -c "cd /build && make -s -j2 WERROR=1 PG_CONFIG=$bindir/pg_config" 2>&1; then
    echo "build against PostgreSQL $major failed"
    echo "0 passed, 1 failed"
    exit 1
fi
chroot "$root" make -s -C /build install PG_CONFIG="$bindir/pg_config" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }

skipped=0
if [[ $what == *" regress "* || $what == *" scripts "* ]]; then
    env_lines=$(in_root bash -c "cd /build && PG_BINDIR=$bindir scripts/pgtmp.sh start") \
        || { echo "server start failed"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
fi

if [[ $what == *" regress "* ]]; then
    in_root bash -c "cd /build && $env_lines && make installcheck TAP_TESTS= PG_CONFIG=$bindir/pg_config" \
        >"$root/build/regress.log" 2>&1
    grep -E '^(not ok|# .*(failed|passed))' "$root/build/regress.log"
    # pg_regress of 15 prints "test NAME ... ok|FAILED"; from 16 on, TAP-style "ok N - NAME".
    ok=$(grep -cE '^ok [0-9]+|\.\.\. ok' "$root/build/regress.log")
    bad=$(grep -cE '^not ok [0-9]+|\.\.\. FAILED' "$root/build/regress.log")
    [ -f "$root/build/regression.diffs" ] && head -n 100 "$root/build/regression.diffs"
    [ $((ok + bad)) -gt 0 ] || bad=1
    echo "pg_regress on $major: $ok passed, $bad failed"
    passed=$((passed + ok)); failed=$((failed + bad))
fi

# Each scripted test as scripts/test.sh runs it: exit 0 passes, 77 skips, anything else fails.
if [[ $what == *" scripts "* ]]; then
    for t in "$root"/build/test/scripts/*.sh; do
        name=$(basename "$t")
        in_root bash -c "cd /build && $env_lines && bash test/scripts/$name" >"$root/build/$name.log" 2>&1
        rc=$?
        case $rc in
            0) passed=$((passed + 1)); echo "$name on $major: passed" ;;
            77) skipped=$((skipped + 1)); echo "$name on $major: skipped" ;;
            *) failed=$((failed + 1)); echo "$name on $major: FAILED"; tail -n 30 "$root/build/$name.log" ;;
        esac
    done
fi

if [ -n "${env_lines:-}" ]; then
    in_root bash -c "$env_lines && PG_BINDIR=$bindir /build/scripts/pgtmp.sh stop \$SIMHASH_PGDIR"
fi

if [[ $what == *" tap "* ]]; then
    in_root bash -c "mkdir -p /tmp/simhash-tap && cp -r /build/t /tmp/simhash-tap/ && cd /tmp/simhash-tap &&
        TESTDIR=/tmp/simhash-tap PG_REGRESS=$pgxs/src/test/regress/pg_regress prove -I $pgxs/src/test/perl/ -I . t/*.pl" \
        >"$root/build/tap.log" 2>&1
    rc=$?
    grep -vE '^#' "$root/build/tap.log" | tail -n 15
    tests=$(sed -n 's/.*Tests=\([0-9]*\).*/\1/p' "$root/build/tap.log" | tail -n1)
    bad=$(grep -Eo 'Failed [0-9]+/[0-9]+ subtests' "$root/build/tap.log" | awk -F'[ /]' '{s+=$2} END {print s+0}')
    tests=${tests:-0}
    [ "$rc" != 0 ] && [ "$bad" = 0 ] && bad=1
    [ "$rc" = 0 ] || grep -E '^#' "$root/build/tap.log" | tail -n 40
    # A file that failed or died: the end of its own log says where and why.
    [ "$rc" = 0 ] || for f in $(sed -n '/^Test Summary Report/,$ s#^\(t/[^ ]*\)\.pl .*#\1#p' "$root/build/tap.log" | sort -u); do
        echo "--- the end of tmp_check/log/regress_log_${f#t/}"
        tail -n 40 "$root/tmp/simhash-tap/tmp_check/log/regress_log_${f#t/}" 2>/dev/null
    done
    echo "TAP on $major: $((tests - bad)) passed, $bad failed"
    passed=$((passed + tests - bad)); failed=$((failed + bad))
fi
# The README's first command as a newcomer on this major runs it, as root: it builds, installs,
# starts its own server, and must write both heat maps. The crawl report's SQL runs there too; the
# dashboard's Evidence build needs node and npm, which the root has not, and is the host's to test.
if [[ $what == *" demo "* ]]; then
    rm -rf "$root/tmp/simhash-demo-out"
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root SIMHASH_SKIP_DEPS=1 SIMHASH_DASHBOARD=0 \
        PG_CONFIG="$bindir/pg_config" SIMHASH_DEMO_DIR="$demo_pages" SIMHASH_DEMO_OUT=/tmp/simhash-demo-out \
        bash -c "cd /build && scripts/demo.sh" >"$root/build/demo.log" 2>&1
    rc=$?
    tail -n "$([ "$rc" = 0 ] && echo 8 || echo 40)" "$root/build/demo.log"
    if [ "$rc" = 0 ] && scripts/check_demo_out.sh "$root/tmp/simhash-demo-out"; then
        passed=$((passed + 1)); echo "the demo on $major: passed"
    else
        failed=$((failed + 1)); echo "the demo on $major: FAILED"
    fi
fi
echo "$passed passed, $failed failed$([ "$skipped" = 0 ] || echo ", $skipped skipped")"
[ "$failed" = 0 ]
