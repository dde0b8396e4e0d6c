#!/usr/bin/env bash
# The differential test of the simhash indexes (test/differential/run.py): seeded query shapes over
# simhash_mih and GiST tables, every index answer compared with a sequential scan's. Fails on any
# wrong answer, crash, internal error (XX000) or uncounted index scan. Needs the server of
# scripts/test.sh (PGHOST, PGPORT, PGUSER); a backend crash restarts that server, which is why it
# must be a server of its own. DIFFERENTIAL_SEED and DIFFERENTIAL_QUERIES override the bounded run
# (a fixed seed, so that the suite is reproducible; see doc/testing.md for longer runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
# Debian's python3-psycopg2 belongs to the system interpreter, not to one a version manager put first.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" test/differential/run.py --seed "${DIFFERENTIAL_SEED:-20240613}" \
    --queries "${DIFFERENTIAL_QUERIES:-6000}" --db "simhash_differential_$$"
