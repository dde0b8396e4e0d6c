#!/usr/bin/env bash
# Installs the crawl dashboard's npm packages (dashboards/evidence, pinned by package-lock.json)
# once per package-lock.json, from a cache kept between runs ($SIMHASH_NPM_CACHE, default
# /var/cache/simhash-npm). dashboards/run.sh calls it; scripts/test.sh also starts it early, in the
# background, so that the download overlaps the tests before the demo.
set -euo pipefail
cd "$(dirname "$0")/evidence"
if ! cmp -s package-lock.json node_modules/.simhash-package-lock.json 2>/dev/null; then
    npm ci --no-audit --no-fund --loglevel=error --cache "${SIMHASH_NPM_CACHE:-/var/cache/simhash-npm}" --prefer-offline
    cp package-lock.json node_modules/.simhash-package-lock.json
fi
