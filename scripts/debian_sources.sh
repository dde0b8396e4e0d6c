#!/usr/bin/env bash
# The apt source lines of a Debian suite, one a line, for mmdebstrap: a stable release's packages
# are built against its point and security updates (the host's postgresql-15 is), so a root of that
# release gets them too; experimental is only what differs from sid, so it comes with sid.
#   scripts/debian_sources.sh SUITE
set -euo pipefail
suite=${1:?usage: debian_sources.sh SUITE}
mirror=http://deb.debian.org/debian
case $suite in
    experimental) echo "deb $mirror sid main"; echo "deb $mirror experimental main" ;;
    bookworm|trixie)
        echo "deb $mirror $suite main"
        echo "deb $mirror $suite-updates main"
        echo "deb http://deb.debian.org/debian-security $suite-security main" ;;
    *) echo "deb $mirror $suite main" ;;
esac
