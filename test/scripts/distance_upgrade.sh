#!/usr/bin/env bash
# 1.0 -> 1.1 turns the result of <-> from simhash_distance into integer. This checks the update in
# place: a view that uses <-> makes ALTER EXTENSION UPDATE refuse with a message naming it and
# changes nothing; without it the update succeeds, a GiST and a simhash_mih index built under 1.0
# keep serving ORDER BY sh <-> q (same rows, same distances as a sequential scan), sh <-> q is an
# integer, a table column of type simhash_distance keeps its values, and the catalog entries of <->
# equal those of a fresh 1.1 install. Needs the server of scripts/test.sh (PGHOST, PGPORT).
set -euo pipefail
cd "$(dirname "$0")/../.."

db=distance_upgrade_$$
fresh=distance_fresh_$$
work=$(mktemp -d)
trap 'psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "DROP DATABASE IF EXISTS $fresh"; rm -rf "$work"' EXIT
psql -X -q -d postgres -c "CREATE DATABASE $db" -c "CREATE DATABASE $fresh"
run() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }

failures=0
check() {  # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1"; echo "  expected: $2"; echo "  actual:   $3"; failures=$((failures + 1)); fi
}

run <<'SQL'
CREATE EXTENSION simhash VERSION '1.0';
CREATE TABLE p (id int PRIMARY KEY, sh simhash);
INSERT INTO p SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 5000) i;
INSERT INTO p VALUES (5001, NULL);
CREATE INDEX p_gist ON p USING gist (sh);
CREATE INDEX p_mih ON p USING simhash_mih (sh);
CREATE TABLE stored AS SELECT id, sh <-> '0123456789abcdef' AS d FROM p WHERE id <= 10;
CREATE VIEW nearest AS SELECT id, sh <-> '0123456789abcdef' AS distance FROM p;
ANALYZE p;
SQL
check "stored column has the 1.0 type" "simhash_distance" "$(run -c "SELECT atttypid::regtype FROM pg_attribute WHERE attrelid = 'stored'::regclass AND attname = 'd'")"

# A view over <-> blocks the update, with a message that names it; nothing changes.
if run -c "ALTER EXTENSION simhash UPDATE TO '1.1'" >"$work/out" 2>&1; then
    echo "FAILED: the update went through although the view nearest uses <->"; failures=$((failures + 1))
else
    cat "$work/out"
    check "refusal names the view" "yes" "$(grep -q 'view nearest' "$work/out" && grep -q 'HINT:  Drop them' "$work/out" && echo yes || echo no)"
    check "refusal is 2BP01" "2BP01" "$(psql -X -q -At -d "$db" -c '\set VERBOSITY verbose' -c "ALTER EXTENSION simhash UPDATE TO '1.1'" 2>&1 | grep -o '2BP01' | head -n1)"
fi
check "still 1.0 after the refusal" "1.0" "$(run -c "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")"

run -c "DROP VIEW nearest" -c "ALTER EXTENSION simhash UPDATE TO '1.1'"
check "updated" "1.1" "$(run -c "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")"
check "<-> returns integer" "integer" "$(run -c "SELECT pg_typeof('1'::simhash <-> '2')")"
check "stored simhash_distance values readable" "10|t" \
    "$(run -c "SELECT count(*), bool_and(d::int = hamming(p.sh, '0123456789abcdef')) FROM stored JOIN p USING (id)")"

# Each index built under 1.0 serves ORDER BY <-> after the update, exactly (no REINDEX).
knn="SELECT string_agg(d::text, ',') FROM (SELECT sh <-> '0123456789abcdef' AS d FROM p
     ORDER BY sh <-> '0123456789abcdef' LIMIT 20) s"
by_scan=$(psql -X -q -At -d "$db" -c "SET enable_indexscan = off" -c "SET enable_indexonlyscan = off" -c "SET enable_bitmapscan = off" -c "$knn")
for idx in p_gist p_mih; do
    other=$([ "$idx" = p_gist ] && echo p_mih || echo p_gist)
    # Each index alone (the other dropped inside a transaction that is rolled back).
    out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "BEGIN" -c "DROP INDEX $other" \
        -c "SET enable_seqscan = off" -c "SET enable_sort = off" \
        -c "EXPLAIN (COSTS OFF) $knn" \
        -c "$knn" -c "ROLLBACK")
    check "$idx serves ORDER BY <-> after the update" "yes" \
        "$(echo "$out" | grep -q "Index.*Scan using $idx" && echo yes || echo "no: $out")"
    check "$idx: the 20 nearest distances equal the sequential scan's" "$by_scan" "$(echo "$out" | tail -n1)"
done
check "simhash_mih index still verifies" "t" "$(run -c "SELECT sorted_rows >= 5000 FROM simhash_mih_check('p_mih')")"

# The catalog entries of <-> are those of a fresh 1.1 install.
catalog="SELECT o.oprname, o.oprresult::regtype, p.proname, p.prorettype::regtype,
                (SELECT string_agg(format('%s %s %s %s', am.amname, a.amopstrategy, a.amoppurpose, f.opfname), '; ' ORDER BY am.amname)
                 FROM pg_amop a JOIN pg_am am ON am.oid = a.amopmethod LEFT JOIN pg_opfamily f ON f.oid = a.amopsortfamily
                 WHERE a.amopopr = o.oid),
                (SELECT string_agg(format('%s %s', pg_describe_object(d.refclassid, d.refobjid, 0), d.deptype), '; ' ORDER BY 1)
                 FROM pg_depend d JOIN pg_amop a ON d.classid = 'pg_amop'::regclass AND d.objid = a.oid WHERE a.amopopr = o.oid),
                obj_description(o.oid, 'pg_operator'), obj_description(p.oid, 'pg_proc'),
                obj_description('simhash_distance'::regtype, 'pg_type')
         FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode WHERE o.oprname = '<->' AND o.oprleft = 'simhash'::regtype"
psql -X -q -At -d "$fresh" -c "CREATE EXTENSION simhash"
check "<-> and its index memberships equal a fresh 1.1 install's" \
    "$(psql -X -q -At -d "$fresh" -c "$catalog")" "$(run -c "$catalog")"

[ "$failures" = 0 ] && echo "1.0 -> 1.1: <-> is an integer and the indexes built under 1.0 keep serving it"
exit "$failures"
