#!/usr/bin/env bash
# Makes (or completes) every Debian root that scripts/test.sh will enter, one after another: for
# each major of scripts/pg_versions.conf but the host's, its root with the packages of what runs
# there (scripts/root_packages.sh), and for every major the root without a compiler where its
# package is tested (pgroot.sh --clean), then the root of each pg_upgrade line
# (scripts/test_pg_upgrade.sh --root-only). scripts/test.sh runs this in the background while the
# host's suite runs, so that downloading and unpacking overlap the host's tests.
#   scripts/prepare_roots.sh [MAJOR...]      (default: every major of the list)
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
suite_of() { awk -v m="$1" '$1 == m { print $2 }' scripts/pg_versions.conf; }
while read -r major suite what; do
    case $major in ''|\#*) continue ;; esac
    if [ "$major" = pg_upgrade ]; then
        [ $# = 0 ] || continue
        read -r from to <<<"$suite $what"
        scripts/test_pg_upgrade.sh --root-only "$from" "$(suite_of "$from")" "$to" "$(suite_of "$to")" >/dev/null || rc=1
        continue
    fi
    [ $# -gt 0 ] && [[ " $* " != *" $major "* ]] && continue
    start=$(date +%s)
    if [ "$suite" = host ]; then
        clean_suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
    else
        clean_suite=$suite
        mapfile -t extra < <(scripts/root_packages.sh $what)
        scripts/pgroot.sh "$major" "$suite" "${extra[@]}" >/dev/null || rc=1
    fi
    [[ " $what " == *" package "* ]] && { scripts/pgroot.sh --clean "$major" "$clean_suite" >/dev/null || rc=1; }
    echo "roots of PostgreSQL $major: $(( $(date +%s) - start )) s"
done < scripts/pg_versions.conf
exit $rc
