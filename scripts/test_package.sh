#!/usr/bin/env bash
# Installs the package postgresql-MAJOR-simhash DEB into a root that has the PostgreSQL server and
# nothing to build with (scripts/pgroot.sh --clean: no compiler, no headers, no source tree), as a
# DBA would, and runs the regression suite against the installed files, as Debian's
# `pg_buildext installcheck` does. The last line is "N passed, M failed".
#   scripts/test_package.sh MAJOR SUITE DEB       SUITE "host" for this machine's own release
set -uo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: test_package.sh MAJOR SUITE DEB}
suite=${2:?usage: test_package.sh MAJOR SUITE DEB}
deb=${3:?usage: test_package.sh MAJOR SUITE DEB}
[ "$suite" = host ] && suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
fail() { echo "$*"; echo "0 passed, 1 failed"; exit 1; }

root=$(scripts/pgroot.sh --clean "$major" "$suite") || fail "no clean root for PostgreSQL $major"
for tool in cc gcc g++ clang make; do
    chroot "$root" sh -c "command -v $tool" >/dev/null && fail "the clean root has $tool"
done

. scripts/root_mounts.sh
mount_root "$root"
trap 'unmount_root; rm -rf "$root/tmp/simhash-installcheck"' EXIT

# The package replaces whatever version an earlier run installed; apt brings its dependencies.
cp "$deb" "$root/tmp/"
chroot "$root" apt-get update -qq >/dev/null || fail "apt-get update failed in the clean root"
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    --allow-downgrades --reinstall "/tmp/$(basename "$deb")" >/dev/null || fail "the package does not install"
chroot "$root" dpkg -s "postgresql-$major-simhash" | grep -E '^(Package|Version):'

# Only the tests travel: sql/ and expected/ (pg_regress's inputs), nothing of the source tree.
dir=/tmp/simhash-installcheck
mkdir -p "$root$dir"
cp -r sql expected "$root$dir/"
chroot "$root" chown -R postgres "$dir"
tests=$(ls sql/*.sql | sed 's#sql/\(.*\)\.sql#\1#' | tr '\n' ' ')
bindir=/usr/lib/postgresql/$major/bin
pg_regress=/usr/lib/postgresql/$major/lib/pgxs/src/test/regress/pg_regress
chroot "$root" runuser -u postgres -- env -i PATH="$bindir:/usr/bin:/bin" HOME=/tmp bash -c "
    cd $dir && $bindir/initdb -D $dir/data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null &&
    $bindir/pg_ctl -D $dir/data -l $dir/server.log -o \"-k $dir -c listen_addresses=''\" -w start >/dev/null &&
    $pg_regress --inputdir=. --bindir=$bindir --host=$dir --port=5432 --user=postgres \
        --load-extension=simhash $tests; rc=\$?
    $bindir/pg_ctl -D $dir/data -m fast -w stop >/dev/null; exit \$rc" >"$root$dir/regress.log" 2>&1
grep -E '^(not ok|# .*(failed|passed))|\.\.\. FAILED|tests (passed|failed)' "$root$dir/regress.log"
ok=$(grep -cE '^ok [0-9]+|\.\.\. ok' "$root$dir/regress.log")
bad=$(grep -cE '^not ok [0-9]+|\.\.\. FAILED' "$root$dir/regress.log")
[ -f "$root$dir/regression.diffs" ] && head -n 60 "$root$dir/regression.diffs"
[ $((ok + bad)) -gt 0 ] || { tail -n 20 "$root$dir/regress.log"; bad=1; }
echo "$ok passed, $bad failed"
[ "$bad" = 0 ]
