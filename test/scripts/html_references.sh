#!/usr/bin/env bash
# html_text decodes every named character reference of HTML's table as another implementation of
# the standard's rule does: Python's html.unescape (the longest name in the table that matches; only
# the legacy names without their ';'). Each of the table's 2,231 entries is tried alone, followed
# by a letter, with and without ';', and between words; the two must agree on all of them.
# Needs the server of scripts/test.sh (PGHOST, PGPORT).
# Runs once: the reference table is the core's, the same on every major.
set -euo pipefail
cd "$(dirname "$0")/../.."

export PGCLIENTENCODING=UTF8
db=simhash_refs_$$
work=$(mktemp -d)
cleanup() {
    psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" || true
    rm -rf "$work"
}
trap cleanup EXIT

psql -X -q -v ON_ERROR_STOP=1 -d postgres \
    -c "CREATE DATABASE $db ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "CREATE EXTENSION simhash"

python3 - "$work/cases.csv" <<'PY'
import csv, html, html.entities, sys
with open(sys.argv[1], "w", newline="", encoding="utf-8") as f:
    out = csv.writer(f)
    for entry in sorted(html.entities.html5):
        name = entry.rstrip(";")
        for doc in ("&%s;" % name, "&%s" % name, "&%sq;" % name, "&%sq" % name, "a &%s; b" % name, "&%s;;" % name):
            out.writerow([doc, html.unescape(doc)])
PY

result=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" <<SQL
CREATE TEMP TABLE cases (doc text, browser text);
\copy cases FROM '$work/cases.csv' WITH (FORMAT csv)
SELECT count(*) || ' cases, ' || count(*) FILTER (WHERE html_text(doc) IS DISTINCT FROM browser) || ' differ' FROM cases;
SELECT doc || ' -> ' || html_text(doc) || ' (expected ' || browser || ')' FROM cases
 WHERE html_text(doc) IS DISTINCT FROM browser LIMIT 20;
SQL
)
echo "$result"
[ "$(echo "$result" | head -n1)" = "$((2231 * 6)) cases, 0 differ" ]
