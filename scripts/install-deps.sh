#!/usr/bin/env bash
# Installs what building and testing simhash needs on Debian 12, skipping what is already there.
set -euo pipefail

packages=(
    build-essential clang-14 llvm-14        # PGXS builds JIT bitcode with clang
    libclang-rt-14-dev                      # libFuzzer and sanitizer runtimes for the fuzz targets
    postgresql-15 postgresql-server-dev-15
    libutf8proc-dev libxxhash-dev           # Unicode and feature hashing in the core
    libgtest-dev libbenchmark-dev           # core tests and benchmarks
    libipc-run-perl                         # PostgreSQL's TAP test framework
    libfaketime                             # a TAP test stops the server's clock
    postgresql-15-cron                      # a TAP test keeps duplicate clusters current from pg_cron
    iproute2 util-linux                     # ss (free port), runuser, flock
    python3                                 # the build (HTML reference table); tests
    chromium                                # the heat map test renders SVG to PNG (python3 reads its pixels)
    python3-psycopg2                        # client type test and the differential test of the indexes
    libpostgresql-jdbc-java default-jdk-headless  # client type test: JDBC, javac
)
# The crawl dashboard (dashboards/) is built with node and npm; any node >= 18 will do.
command -v npm >/dev/null || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "install-deps: run as root to install: ${missing[*]}" >&2; exit 1; }
    echo "install-deps: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
