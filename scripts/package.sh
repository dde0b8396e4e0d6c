#!/usr/bin/env bash
# Builds the Debian package postgresql-MAJOR-simhash_<version>_<arch>.deb with pg_buildext
# (debian/) into OUTDIR: for the host's major on this machine, for another in its Debian root
# (scripts/pgroot.sh). The tree is copied first, so the checkout stays clean.
#   scripts/package.sh MAJOR SUITE OUTDIR         SUITE "host" for this machine's PostgreSQL
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: package.sh MAJOR SUITE OUTDIR}
suite=${2:?usage: package.sh MAJOR SUITE OUTDIR}
out=${3:?usage: package.sh MAJOR SUITE OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)

build_tools=(debhelper dpkg-dev fakeroot postgresql-server-dev-all)
if [ "$suite" = host ]; then
    root=
    missing=()
    for p in "${build_tools[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} = 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
else
    root=$(scripts/pgroot.sh "$major" "$suite" "${build_tools[@]}")
fi

work="$root/tmp/simhash-package"
rm -rf "$work"
mkdir -p "$work/simhash"
git ls-files -co --exclude-standard -z | tar -c --null -T - | tar -x -C "$work/simhash"
# pg_buildext builds for the majors of debian/pgversions that postgresql-common supports, which
# PG_SUPPORTED_VERSIONS names: exactly this one (19 is not yet among sid's).
# SIMHASH_WERROR=1 makes warnings errors (scripts/test.sh builds each major's package so).
build="cd /tmp/simhash-package/simhash && export PG_SUPPORTED_VERSIONS=$major ${SIMHASH_WERROR:+WERROR=1} &&
       pg_buildext updatecontrol && dpkg-buildpackage -us -uc -b -j2"
# A clean environment: a PG_CONFIG of the caller's (scripts/test.sh exports the host's) would
# override the one pg_buildext names for each major.
if [ -z "$root" ]; then
    env -u PG_CONFIG bash -c "$build"
else
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash -c "$build"
fi
cp "$work"/postgresql-"$major"-simhash_*.deb "$out/"
# The library's debug symbols, which dh_strip moves into a -dbgsym package: the test of the
# installed library's machine code (test/scripts/probe_prefetch.sh) reads its local symbols there.
cp "$work"/postgresql-"$major"-simhash-dbgsym_*.*deb "$out/" 2>/dev/null || true
rm -rf "$work"
ls "$out"/postgresql-"$major"-simhash_*.deb
