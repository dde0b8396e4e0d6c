#!/usr/bin/env bash
# What BI tools and applications receive: every statement of the ```sql blocks of README.md and of
# doc/*.md runs, in order, in a fresh database, once through psycopg2 and once through the
# PostgreSQL JDBC driver, and every column the server calls a number must reach the client as a
# number (Python int/float/Decimal; Java Integer/Long/Double/BigDecimal...), never as text or an
# opaque object. The statements are taken from the documentation itself (test/clients/statements.py),
# so the list is written once. Needs the server of scripts/test.sh (PGHOST, PGPORT, PGUSER; JDBC
# connects to 127.0.0.1:$PGPORT), python3-psycopg2, libpostgresql-jdbc-java and javac.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Debian's python3-psycopg2 is for the system interpreter, which a pyenv or venv on PATH may hide.
py=/usr/bin/python3
jar=/usr/share/java/postgresql.jar
[ -r "$jar" ] || { echo "$jar missing: install libpostgresql-jdbc-java (scripts/install-deps.sh)"; exit 1; }
db=client_types_$$
work=$(mktemp -d)
chmod 755 "$work"
trap 'psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db"; rm -rf "$work"' EXIT

javac -d "$work" -cp "$jar" test/clients/CheckJdbc.java
export SIMHASH_CLIENTS_DIR=$PWD/test/clients

fresh_db() {  # fresh_db FILE: an empty database; README.md creates the extension itself
    psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    [ "$1" = README.md ] || psql -X -q -d "$db" -c "CREATE EXTENSION simhash"
}

failed=0
for file in README.md doc/*.md; do
    "$py" test/clients/statements.py "$file" "$work/statements"
    [ -s "$work/statements" ] || { [ "$file" != README.md ] && continue; echo "no statements in README.md"; exit 1; }
    echo "== $file through psycopg2"
    fresh_db "$file"
    "$py" test/clients/check_psycopg2.py "$work/statements" "$db" || failed=1
    echo "== $file through JDBC"
    fresh_db "$file"
    java -cp "$work:$jar" CheckJdbc "$work/statements" "$db" || failed=1
done
[ "$failed" = 0 ] && echo "every number of every documented query reached psycopg2 and JDBC as a number"
exit "$failed"
