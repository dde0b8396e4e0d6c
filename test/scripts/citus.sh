#!/usr/bin/env bash
# The Citus recipes of README "Scaling out" on a small loopback cluster (scripts/citus_cluster.sh),
# when Citus is installed for this PostgreSQL. Citus is not in Debian; without it this test exits 77,
# which scripts/test.sh counts as skipped, not passed (doc/scaling.md tells how to build Citus).
# Runs once: Citus is built for one major at a time (doc/scaling.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
scripts/citus_cluster.sh 20000
rc=$?
if [ "$rc" = 3 ]; then
    echo "SKIPPED: Citus is not installed, so the Citus recipes were not run"
    exit 77
fi
exit "$rc"
