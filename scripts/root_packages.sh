#!/usr/bin/env bash
# The extra Debian packages a major's root (scripts/pgroot.sh) needs for what runs in it, as listed
# in scripts/pg_versions.conf ("package", "scripts", "tap", "demo"), one a line: the one list that
# scripts/prepare_roots.sh makes the roots with and the scripts that enter them ask for.
#   scripts/root_packages.sh WHAT...
set -euo pipefail
for what in "$@"; do
    case $what in
        # pg_buildext and dpkg-buildpackage (scripts/package.sh)
        package) printf '%s\n' debhelper dpkg-dev fakeroot postgresql-server-dev-all ;;
        # the scripted tests' clients: psycopg2, JDBC, and Chromium for the heat map
        scripts) printf '%s\n' python3 python3-psycopg2 default-jdk-headless libpostgresql-jdbc-java chromium ;;
        # the demo renders its heat maps with Chromium
        demo) echo chromium ;;
    esac
done | sort -u
