#!/usr/bin/env bash
# A DBA's major-version upgrade with pg_upgrade, from PostgreSQL OLD to NEW, with simhash installed
# from its packages (scripts/package.sh) for both: in a Debian root of NEW's release that also holds
# OLD's server from OLD's release (cached in $SIMHASH_ROOTS), a cluster of OLD gets the crawl of
# test/pg_upgrade/setup.sql (every index kind, generated columns, views); pg_upgrade moves it to
# NEW; the answers of test/pg_upgrade/answers.sql (each index against a sequential scan, the
# simhash_mih indexes checked with heapallindexed, generated columns, the views) must be the same
# after as before. The last line is "N passed, M failed".
#   scripts/test_pg_upgrade.sh OLD OLD_SUITE OLD_DEB NEW NEW_SUITE NEW_DEB
#   scripts/test_pg_upgrade.sh --root-only OLD OLD_SUITE NEW NEW_SUITE   (makes the root, no test)
set -uo pipefail
cd "$(dirname "$0")/.."
root_only=
if [ "${1:-}" = --root-only ]; then
    root_only=1 old=$2 old_suite=$3 new=$4 new_suite=$5
else
    old=$1 old_suite=$2 old_deb=$3 new=$4 new_suite=$5 new_deb=$6
fi
[ "$old_suite" = host ] && old_suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
fail() { echo "$*"; echo "0 passed, 1 failed"; exit 1; }

roots=${SIMHASH_ROOTS:-/var/cache/simhash-roots}
root="$roots/pg$old-to-$new"
if [ ! -f "$root/.simhash-root-done" ]; then
    rm -rf "$root" "$root.partial"
    # Both releases' sources, with their updates: each package was built against its release's.
    mapfile -t sources < <(scripts/debian_sources.sh "$new_suite"; scripts/debian_sources.sh "$old_suite")
    mmdebstrap --quiet --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
        --include="postgresql-$new,postgresql-$old" "$new_suite" "$root.partial" \
        "${sources[@]}" >&2 || fail "no root for $old and $new"
    touch "$root.partial/.simhash-root-done"
    mv "$root.partial" "$root"
fi
[ -z "$root_only" ] || exit 0

. scripts/root_mounts.sh
mount_root "$root"

cp "$old_deb" "$new_deb" "$root/tmp/"
chroot "$root" apt-get update -qq >/dev/null || fail "apt-get update failed"
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    --allow-downgrades --reinstall "/tmp/$(basename "$old_deb")" "/tmp/$(basename "$new_deb")" >/dev/null \
    || fail "the packages do not install"

dir=/tmp/simhash-pg-upgrade
rm -rf "$root$dir"
mkdir -p "$root$dir"
cp test/pg_upgrade/*.sql "$root$dir/"
chroot "$root" chown -R postgres "$dir"
as_pg() { chroot "$root" runuser -u postgres -- env -i PATH=/usr/bin:/bin HOME=/tmp LC_ALL=C.UTF-8 bash -c "cd $dir && $1"; }
ob=/usr/lib/postgresql/$old/bin
nb=/usr/lib/postgresql/$new/bin
opts="-o \"-p 5432 -k $dir -c listen_addresses=''\""
psql="psql -X -q -v ON_ERROR_STOP=1 -h $dir -p 5432 -U postgres -d postgres"

# Both clusters with data checksums, the default from 18 on (pg_upgrade needs the same on both
# sides); every page the upgraded server reads is verified.
initdb_opts="-U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --data-checksums"
as_pg "$ob/initdb -D old $initdb_opts >/dev/null &&
       $ob/pg_ctl -D old -l old.log $opts -w start >/dev/null &&
       $ob/$psql -f setup.sql && $ob/$psql -f answers.sql >before.txt; rc=\$?;
       $ob/pg_ctl -D old -m fast -w stop >/dev/null; exit \$rc" || fail "the crawl of PostgreSQL $old was not set up"
# The new cluster as the old one was made; pg_upgrade checks first, then upgrades (copying files).
as_pg "$nb/initdb -D new $initdb_opts >/dev/null &&
       $nb/pg_upgrade -b $ob -B $nb -d old -D new -U postgres --check >check.log &&
       $nb/pg_upgrade -b $ob -B $nb -d old -D new -U postgres >upgrade.log" \
    || { cat "$root$dir"/check.log "$root$dir"/upgrade.log 2>/dev/null | tail -n 30
         # pg_upgrade names its logs; the error itself is in them (a refused statement of the restore).
         grep -h -E 'ERROR: |error: ' "$root$dir"/new/pg_upgrade_output.d/*/log/*.log 2>/dev/null | head -n 5
         fail "pg_upgrade failed"; }
grep -E 'Upgrade Complete|Clusters are compatible' "$root$dir"/check.log "$root$dir"/upgrade.log
as_pg "$nb/pg_ctl -D new -l new.log $opts -w start >/dev/null &&
       $nb/$psql -f answers.sql >after.txt; rc=\$?;
       $nb/pg_ctl -D new -m fast -w stop >/dev/null; exit \$rc" || fail "PostgreSQL $new did not answer"

passed=0 failed=0
cat "$root$dir/after.txt"
if diff "$root$dir/before.txt" "$root$dir/after.txt"; then
    echo "after pg_upgrade from $old to $new every answer is as before"; passed=$((passed + 1))
else
    echo "the answers differ after pg_upgrade (above)"; failed=$((failed + 1))
fi
if grep -q '|t|' "$root$dir/after.txt" && ! grep -q '|f|' "$root$dir/after.txt"; then
    echo "every index answers as a sequential scan"; passed=$((passed + 1))
else
    echo "an index answers otherwise than a sequential scan"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
