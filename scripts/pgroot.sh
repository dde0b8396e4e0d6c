#!/usr/bin/env bash
# A Debian root holding PostgreSQL MAJOR (server, headers, PGXS), what building and testing simhash
# needs, and any EXTRA packages, made once from Debian's archive with mmdebstrap and kept in
# $SIMHASH_ROOTS (default /var/cache/simhash-roots) for the next run. Prints the root's path.
#   scripts/pgroot.sh [--clean] MAJOR SUITE [EXTRA...]   SUITE: bookworm, trixie, ... or experimental
# --clean makes another root, pgMAJOR-clean, with the PostgreSQL server alone (no compiler, no
# headers): where a package is installed and tested as a DBA's server would have it.
# The host's own PostgreSQL is not touched: each major lives in its own root, entered with chroot.
set -euo pipefail
clean=
[ "${1:-}" = --clean ] && { clean=1; shift; }
major=${1:?usage: pgroot.sh [--clean] MAJOR SUITE [EXTRA...]}
suite=${2:?usage: pgroot.sh [--clean] MAJOR SUITE [EXTRA...]}
shift 2
roots=${SIMHASH_ROOTS:-/var/cache/simhash-roots}
root="$roots/pg$major${clean:+-clean}"
# Written last, listing the sources and packages the root holds: a root without it (an interrupted
# make) is made again, and one that lacks packages asked for now gets just those.
done_file="$root/.simhash-root-done"

# python3: the build writes the core's HTML reference table with it (scripts/char_reference_table.py);
# libfaketime: t/015 stops the server's clock.
packages=(build-essential libutf8proc-dev libxxhash-dev libipc-run-perl iproute2 python3 libfaketime)
server=("postgresql-$major")
dev=("postgresql-server-dev-$major")
mapfile -t sources < <("$(dirname "$0")/debian_sources.sh" "$suite")
base=$suite
if [ "$suite" = experimental ]; then
    # experimental's PostgreSQL needs its own libpq too.
    base=sid
    server=("postgresql-$major/experimental" "postgresql-client-$major/experimental" libpq5/experimental)
    dev=("postgresql-server-dev-$major/experimental" libpq-dev/experimental)
fi
if [ -n "$clean" ]; then packages=("${server[@]}"); else packages+=("${server[@]}" "${dev[@]}"); fi
packages+=("$@")

# A root whose list names other sources than these is made again.
if [ -f "$done_file" ] && grep -q '^deb ' "$done_file"; then
    for line in "${sources[@]}"; do grep -qxF "$line" "$done_file" || rm -f "$done_file"; done
fi
if [ -f "$done_file" ]; then
    missing=()
    for p in "${packages[@]}"; do grep -qx "$p" "$done_file" || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ]; then
        # Some packages' scripts need /proc (java does).
        . "$(dirname "$0")/root_mounts.sh"
        mount_root "$root"
        chroot "$root" dpkg --configure -a >&2
        chroot "$root" apt-get update -qq >&2
        chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >&2
        printf '%s\n' "${missing[@]}" >>"$done_file"
    fi
    echo "$root"
    exit 0
fi

command -v mmdebstrap >/dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
}
mkdir -p "$roots"
rm -rf "$root" "$root.partial"
# The suites after bookworm are served as they were when this machine's archive copy was taken:
# their Release files may be past their Valid-Until date.
mmdebstrap --quiet --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
    --include="$(IFS=,; echo "${packages[*]}")" "$base" "$root.partial" "${sources[@]}" >&2
printf '%s\n' "${sources[@]}" "${packages[@]}" >"$root.partial/.simhash-root-done"
mv "$root.partial" "$root"
echo "$root"
