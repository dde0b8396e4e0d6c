#!/usr/bin/env bash
# META.json, the distribution's metadata for PGXN, follows the PGXN Meta Spec 1.0.0 and agrees with
# the tree (test/pgxn/check_meta.py; with --self-test it also refuses broken copies). Needs no server.
# Runs once: it reads files of the tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 test/pgxn/check_meta.py META.json --self-test
