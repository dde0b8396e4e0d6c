#!/usr/bin/env bash
# Tests simhash on PostgreSQL MAJOR inside its Debian root (scripts/pgroot.sh), against the major's
# package DEB (built by scripts/package.sh) installed there: what of the suite depends on the
# server's version. "scripts": the scripted tests (test/scripts/*.sh) but those marked
# "# Runs once:" (the host runs them), against a throwaway server; "tap": the TAP files marked
# "# On every major:" (scripts/tap.sh --every-major); "demo": the demo (scripts/demo.sh), which
# builds from the tree as a newcomer's clone does. The last line is "N passed, M failed" for this
# major (", K skipped" after it when a scripted test skipped).
#   scripts/test_major.sh MAJOR SUITE DEB [scripts] [tap] [demo]
set -uo pipefail
cd "$(dirname "$0")/.."
usage="usage: test_major.sh MAJOR SUITE DEB [scripts] [tap] [demo]"
major=${1:?$usage}
suite=${2:?$usage}
deb=${3:?$usage}
shift 3
what=" $* "

mapfile -t extra < <(scripts/root_packages.sh package $what)
root=$(scripts/pgroot.sh "$major" "$suite" "${extra[@]}") || { echo "0 passed, 1 failed"; exit 1; }
bindir=/usr/lib/postgresql/$major/bin

# The tree as it is (tracked and untracked files, no build output) goes to /build in the root: the
# tests' inputs, and the demo's sources.
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

# With its debug symbols where package.sh left them beside it (the machine code's test reads them).
debs=("$deb" $(ls "$(dirname "$deb")"/postgresql-"$major"-simhash-dbgsym_*.*deb 2>/dev/null))
in_root_debs=()
for d in "${debs[@]}"; do cp "$d" "$root/tmp/"; in_root_debs+=("/tmp/$(basename "$d")"); done
chroot "$root" dpkg -i "${in_root_debs[@]}" >/dev/null || { echo "the package does not install"; echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 skipped=0
# Each scripted test as scripts/test.sh runs it: exit 0 passes, 77 skips, anything else fails.
if [[ $what == *" scripts "* ]]; then
    env_lines=$(in_root bash -c "cd /build && PG_BINDIR=$bindir scripts/pgtmp.sh start") \
        || { echo "server start failed"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
    for t in $(grep -L '^# Runs once:' "$root"/build/test/scripts/*.sh | sort); do
        name=$(basename "$t")
        in_root bash -c "cd /build && $env_lines && bash test/scripts/$name" >"$root/build/$name.log" 2>&1
        rc=$?
        case $rc in
            0) passed=$((passed + 1)); echo "$name on $major: passed" ;;
            77) skipped=$((skipped + 1)); echo "$name on $major: skipped" ;;
            *) failed=$((failed + 1)); echo "$name on $major: FAILED"; tail -n 30 "$root/build/$name.log" ;;
        esac
    done
    in_root bash -c "$env_lines && PG_BINDIR=$bindir /build/scripts/pgtmp.sh stop \$SIMHASH_PGDIR"
fi

if [[ $what == *" tap "* ]]; then
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root PG_CONFIG="$bindir/pg_config" \
        SIMHASH_TAP_DIR=/tmp/simhash-tap SIMHASH_TAP_JOBS="${SIMHASH_TAP_JOBS:-1}" bash -c "cd /build && scripts/tap.sh --installed --every-major" \
        >"$root/build/tap.log" 2>&1
    grep -vE '^#' "$root/build/tap.log" | tail -n 60
    line=$(tail -n1 "$root/build/tap.log")
    p=$(echo "$line" | awk '$2 == "passed," { print $1 }'); f=$(echo "$line" | awk '$2 == "passed," { print $3 }')
    [ -n "$p" ] || { p=0; f=1; }
    echo "TAP on $major: $p passed, $f failed"
    passed=$((passed + p)); failed=$((failed + f))
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
