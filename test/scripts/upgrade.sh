#!/usr/bin/env bash
# In-place upgrade from 1.0 (the frozen src/install/versions/simhash--1.0.sql) to the version this tree
# builds, with ALTER EXTENSION simhash UPDATE, on a database that uses the extension the way a crawl
# database does: simhash columns, generated columns computed by simhash(text), simhash_html() and
# hamming(), a GiST, a simhash_mih, a GIN simhash_mih_ops and a btree index, an expression index on
# simhash_html(), a view and materialized views.
#   1. After the update every query answers as before it, and through each index exactly as a
#      sequential scan does (EXPLAIN shows the index is used), also after rows are added; the
#      generated columns hold what the functions return now, also after what CHANGELOG.md's upgrade
#      notes say to recompute is recomputed (1.3: simhash_html's generated column and expression
#      index); the materialized views refresh. Old versions run this build's library, so only
#      changes made in SQL show here; the regression tests' expected outputs pin the library's.
#   2. Every object of the updated extension is defined exactly as in a fresh CREATE EXTENSION
#      (functions with bodies and settings, aggregates, operators, types and domain constraints,
#      casts, operator classes and families, access methods, comments, privileges), compared by
#      signature text, never by OID. A difference is printed and fails the test: it means an
#      install-script change was not mirrored in the upgrade script.
# Needs the server of scripts/test.sh (PGHOST, PGPORT) and the extension installed in it.
set -euo pipefail
cd "$(dirname "$0")/../.."

old=simhash_upgrade_old_$$
fresh=simhash_upgrade_fresh_$$
work=$(mktemp -d)
cleanup() {
    psql -X -q -d postgres -c "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS $old" -c "DROP DATABASE IF EXISTS $fresh" || true
    rm -rf "$work"
}
trap cleanup EXIT
run() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

run -d postgres -c "CREATE DATABASE $old" -c "CREATE DATABASE $fresh"
default_version=$(psql -X -At -d postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = 'simhash'")
echo "updating simhash 1.0 to $default_version"

# ---- 1.0, and a crawl database built with it ----------------------------------------------------
run -d "$old" <<'SQL'
CREATE EXTENSION simhash VERSION '1.0';
CREATE SCHEMA t;
CREATE TABLE t.pages (
    id bigint PRIMARY KEY,
    body text NOT NULL,
    sh simhash,
    sh_text simhash GENERATED ALWAYS AS (simhash(body)) STORED,
    html text NOT NULL,
    sh_html simhash GENERATED ALWAYS AS (simhash_html(html)) STORED,
    from_zero hamming_distance GENERATED ALWAYS AS (hamming(sh, '0000000000000000')) STORED);
-- Clusters of near duplicates (a few bits flipped from a cluster's hash), some NULLs.
CREATE FUNCTION t.add_pages(first bigint, last bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO t.pages (id, body, html, sh)
    SELECT i, b.body,
           -- Every 7th page names characters outside the legacy list, which 1.3 decodes and 1.0 did not.
           '<p>' || b.body || CASE WHEN i % 7 = 0 THEN ' x&Afr;y &notin; &copysr;' ELSE ' &amp &copy; &eacute;' END || '</p>',
           CASE WHEN i % 97 = 0 THEN NULL ELSE
           ((hashint8(i / 10) & x'7fffffffffffffff'::bigint)
            # (CASE WHEN i % 10 > 0 THEN 1::bigint << (hashint4(i::int) & 63) ELSE 0 END)
            # (CASE WHEN i % 10 > 4 THEN 1::bigint << (hashint4(i::int * 7) & 63) ELSE 0 END)
            # (CASE WHEN i % 10 > 7 THEN (hashint4(i::int * 13) & 255)::bigint ELSE 0 END))::simhash END
    FROM generate_series(first, last) i,
         LATERAL (SELECT 'page of site ' || (i / 10) || ' about ' || md5((i / 10)::text) || ' version ' || (i % 3)) b(body) $$;
SELECT FROM t.add_pages(1, 3000);
CREATE INDEX pages_gist ON t.pages USING gist (sh);
CREATE INDEX pages_mih ON t.pages USING simhash_mih (sh);
CREATE INDEX pages_gin ON t.pages USING gin (sh simhash_mih_ops);
CREATE INDEX pages_btree ON t.pages (sh);
CREATE INDEX pages_html_expr ON t.pages (simhash_html(html));
ANALYZE t.pages;
CREATE VIEW t.near_zero AS SELECT id FROM t.pages WHERE hamming(sh, '0000000000000000') <= 20;
CREATE MATERIALIZED VIEW t.dup_pairs AS SELECT * FROM simhash_pairs('SELECT id, sh FROM t.pages WHERE sh IS NOT NULL', 3);
CREATE MATERIALIZED VIEW t.clusters AS SELECT * FROM simhash_cluster_summary('SELECT id, sh FROM t.pages WHERE sh IS NOT NULL', 3);
CREATE MATERIALIZED VIEW t.by_text AS SELECT sh_text, count(*) AS n FROM t.pages GROUP BY sh_text;

-- Query hashes: near members of some clusters, and hashes near nothing.
CREATE TABLE t.queries AS
SELECT (sh::bigint # (1::bigint << (id % 64)::int))::simhash AS q FROM t.pages WHERE id % 211 = 5 AND sh IS NOT NULL
UNION ALL SELECT (hashint8(-i) & x'7fffffffffffffff'::bigint)::simhash FROM generate_series(1, 5) i;

-- answers(forms): each form's answer for every query hash (and radius), as text. Ties in nearest
-- neighbours make ids ambiguous, so those answers are the distances of the 10 nearest.
CREATE FUNCTION t.answers(forms text[]) RETURNS TABLE (form text, query text, answer text)
    LANGUAGE plpgsql AS $$
DECLARE
    templates CONSTANT jsonb := jsonb_build_object(
        'radius', 'SELECT array_agg(id ORDER BY id)::text FROM t.pages WHERE hamming(sh, %L) <= %s',
        'ball', 'SELECT array_agg(id ORDER BY id)::text FROM t.pages WHERE sh <@ hamming_ball(%L, %s)',
        'arrow', 'SELECT array_agg(id ORDER BY id)::text FROM t.pages WHERE sh <-> %L <= %s',
        'knn', 'SELECT array_agg(d ORDER BY d)::text FROM (SELECT sh <-> %1$L AS d FROM t.pages ORDER BY sh <-> %1$L LIMIT 10) s',
        'eq', 'SELECT array_agg(id ORDER BY id)::text FROM t.pages WHERE sh = %L',
        'range', 'SELECT array_agg(id)::text FROM (SELECT id FROM t.pages WHERE sh > %L ORDER BY sh, id LIMIT 5) s');
    f text;
    q simhash;
    k integer;
BEGIN
    FOREACH f IN ARRAY forms LOOP
        FOR q IN SELECT * FROM t.queries ORDER BY 1 LOOP
            FOREACH k IN ARRAY CASE WHEN f IN ('radius', 'ball', 'arrow') THEN ARRAY[0, 3, 7] ELSE ARRAY[-1] END LOOP
                form := f;
                query := format(templates ->> f, q, k);
                EXECUTE query INTO answer;
                RETURN NEXT;
            END LOOP;
        END LOOP;
    END LOOP;
END $$;

-- check_index(index, forms): every answer through the index (the only one on sh, seqscan off)
-- equals the sequential scan's, and the plan of each form uses the index.
CREATE FUNCTION t.check_index(idx text, forms text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    f text;
    plan text;
    bad record;
    n bigint;
BEGIN
    SET LOCAL enable_seqscan = off;
    FOREACH f IN ARRAY forms LOOP
        plan := '';
        FOR bad IN EXECUTE 'EXPLAIN (COSTS OFF) ' || (SELECT a.query FROM t.answers(ARRAY[f]) a LIMIT 1) LOOP
            plan := plan || bad."QUERY PLAN" || E'\n';
        END LOOP;
        IF position(idx IN plan) = 0 THEN
            RAISE EXCEPTION 'the % form does not use index %:%', f, idx, E'\n' || plan;
        END IF;
    END LOOP;
    SELECT count(*) INTO n FROM t.answers(forms);
    FOR bad IN SELECT i.form, i.query, i.answer AS through_index, s.answer AS seqscan
               FROM t.answers(forms) i JOIN t.seq_answers s USING (form, query)
               WHERE i.answer IS DISTINCT FROM s.answer LOOP
        RAISE EXCEPTION 'index % answers % as %, a sequential scan as %', idx, bad.query, bad.through_index, bad.seqscan;
    END LOOP;
    RETURN format('%s: %s answers of %s equal the sequential scan''s', idx, n, array_to_string(forms, ', '));
END $$;

-- What 1.0 answers, by sequential scan.
SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
CREATE TABLE t.before_answers AS SELECT * FROM t.answers(ARRAY['radius', 'ball', 'arrow', 'knn', 'eq', 'range']);
CREATE TABLE t.before_pairs AS SELECT * FROM t.dup_pairs;
CREATE TABLE t.before_clusters AS SELECT * FROM t.clusters;
SQL

# ---- the update ---------------------------------------------------------------------------------
run -d "$old" -c "ALTER EXTENSION simhash UPDATE"
got=$(psql -X -At -d "$old" -c "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")
[ "$got" = "$default_version" ] || { echo "after ALTER EXTENSION UPDATE the version is $got, not $default_version"; exit 1; }
echo "updated to $got"

# ---- 1. everything still works ------------------------------------------------------------------
run -d "$old" <<'SQL'
\set ON_ERROR_STOP on
SET client_min_messages = notice;
-- The sequential-scan answers of the updated extension.
SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
CREATE TABLE t.seq_answers AS SELECT * FROM t.answers(ARRAY['radius', 'ball', 'arrow', 'knn', 'eq', 'range']);
RESET enable_indexscan; RESET enable_bitmapscan; RESET enable_indexonlyscan;
DO $$
DECLARE bad record;
BEGIN
    FOR bad IN SELECT b.form, b.query, b.answer AS before, a.answer AS after
               FROM t.before_answers b FULL JOIN t.seq_answers a USING (form, query)
               WHERE b.answer IS DISTINCT FROM a.answer LOOP
        RAISE EXCEPTION 'after the update % answers % (before: %)', bad.query, bad.after, bad.before;
    END LOOP;
    RAISE NOTICE 'the updated extension answers all % queries as 1.0 did', (SELECT count(*) FROM t.seq_answers);
END $$;

-- Each index, built by 1.0, alone on the column. (In 1.1 the arrow form sh <-> q <= k is a row
-- filter, since <-> returns integer: its answers are compared above, its index use is not checked.)
BEGIN; DROP INDEX t.pages_mih, t.pages_gin, t.pages_btree;
SELECT t.check_index('pages_gist', ARRAY['radius', 'ball', 'knn']); ROLLBACK;
BEGIN; DROP INDEX t.pages_gist, t.pages_gin, t.pages_btree;
SELECT t.check_index('pages_mih', ARRAY['radius', 'ball', 'knn']); ROLLBACK;
BEGIN; DROP INDEX t.pages_gist, t.pages_mih, t.pages_btree;
SELECT t.check_index('pages_gin', ARRAY['radius', 'ball']); ROLLBACK;
BEGIN; DROP INDEX t.pages_gist, t.pages_mih, t.pages_gin;
SELECT t.check_index('pages_btree', ARRAY['eq', 'range']); ROLLBACK;
SELECT * FROM simhash_mih_check('t.pages_mih');

-- The view, and the materialized views: populated by 1.0, refreshed by the update.
SELECT (SELECT count(*) FROM t.near_zero) = (SELECT count(*) FROM t.pages WHERE hamming(sh, '0000000000000000') <= 20)
       AS view_answers;
REFRESH MATERIALIZED VIEW t.dup_pairs;
REFRESH MATERIALIZED VIEW t.clusters;
REFRESH MATERIALIZED VIEW t.by_text;
DO $$
BEGIN
    IF EXISTS (SELECT * FROM t.dup_pairs EXCEPT SELECT * FROM t.before_pairs)
       OR EXISTS (SELECT * FROM t.before_pairs EXCEPT SELECT * FROM t.dup_pairs) THEN
        RAISE EXCEPTION 'the refreshed dup_pairs differs from 1.0''s';
    END IF;
    IF EXISTS (SELECT * FROM t.clusters EXCEPT SELECT * FROM t.before_clusters)
       OR EXISTS (SELECT * FROM t.before_clusters EXCEPT SELECT * FROM t.clusters) THEN
        RAISE EXCEPTION 'the refreshed clusters differs from 1.0''s';
    END IF;
    RAISE NOTICE 'materialized views refresh to 1.0''s rows (% pairs, % clusters)',
        (SELECT count(*) FROM t.dup_pairs), (SELECT count(*) FROM t.clusters);
END $$;

-- Rows added under the new version go into the indexes built by 1.0.
SELECT FROM t.add_pages(3001, 4000);
-- A generated column computed by 1.0 holds what the function returns now; if not, an upgrade script
-- changed an IMMUTABLE function's result (its SQL definition), and its upgrade note must say what
-- to recompute.
SELECT count(*) FILTER (WHERE sh_text IS DISTINCT FROM simhash(body)) AS stale_simhash_text,
       count(*) FILTER (WHERE from_zero IS DISTINCT FROM hamming(sh, '0000000000000000')) AS stale_hamming,
       count(*) AS pages
FROM t.pages \gset
\if :stale_simhash_text
\echo 'generated column sh_text: rows computed by 1.0 differ from simhash(body) now'
SELECT 1 / 0;
\endif
\if :stale_hamming
\echo 'generated column from_zero: rows computed by 1.0 differ from hamming() now'
SELECT 1 / 0;
\endif

-- What 1.3's upgrade note says to recompute (the *_html functions decode all of HTML's named
-- references): generated columns by rewriting their rows, expression indexes by REINDEX. Every
-- version runs this build's library, so rows computed "by 1.0" here already hold this build's
-- values: a changed result of C or C++ code shows in the regression tests' expected outputs, not
-- here. This checks that the note's commands work on the updated database.
UPDATE t.pages SET html = html;
REINDEX INDEX t.pages_html_expr;
SELECT count(*) FILTER (WHERE sh_html IS DISTINCT FROM simhash_html(html)) AS stale_html FROM t.pages \gset
\if :stale_html
\echo 'generated column sh_html: rows differ from simhash_html(html) after the recomputation'
SELECT 1 / 0;
\endif
\echo generated columns of all :pages rows equal what the functions return now

-- Through the rebuilt expression index, every page is found by its simhash_html as a sequential
-- scan finds it.
CREATE TEMP TABLE html_keys AS SELECT simhash_html(html) AS k, array_agg(id ORDER BY id) AS ids FROM t.pages GROUP BY 1;
SET enable_seqscan = off;
SELECT count(*) AS html_index_misses FROM html_keys k
WHERE (SELECT array_agg(p.id ORDER BY p.id) FROM t.pages p WHERE simhash_html(p.html) = k.k) IS DISTINCT FROM k.ids \gset
RESET enable_seqscan;
\if :html_index_misses
\echo 'expression index pages_html_expr: ' :html_index_misses 'simhash_html values found differently than by a sequential scan'
SELECT 1 / 0;
\endif
\echo expression index pages_html_expr answers as a sequential scan

SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
DROP TABLE t.seq_answers;
CREATE TABLE t.seq_answers AS SELECT * FROM t.answers(ARRAY['radius', 'ball', 'arrow', 'knn', 'eq', 'range']);
RESET enable_indexscan; RESET enable_bitmapscan; RESET enable_indexonlyscan;
BEGIN; DROP INDEX t.pages_mih, t.pages_gin, t.pages_btree;
SELECT t.check_index('pages_gist', ARRAY['radius', 'ball', 'knn']); ROLLBACK;
BEGIN; DROP INDEX t.pages_gist, t.pages_gin, t.pages_btree;
SELECT t.check_index('pages_mih', ARRAY['radius', 'ball', 'knn']); ROLLBACK;
BEGIN; DROP INDEX t.pages_gist, t.pages_mih, t.pages_btree;
SELECT t.check_index('pages_gin', ARRAY['radius', 'ball']); ROLLBACK;
BEGIN; DROP INDEX t.pages_gist, t.pages_mih, t.pages_gin;
SELECT t.check_index('pages_btree', ARRAY['eq', 'range']); ROLLBACK;
SELECT * FROM simhash_mih_check('t.pages_mih');
REFRESH MATERIALIZED VIEW t.dup_pairs;
SELECT NOT EXISTS (SELECT * FROM t.dup_pairs EXCEPT SELECT * FROM simhash_pairs('SELECT id, sh FROM t.pages WHERE sh IS NOT NULL', 3))
       AND NOT EXISTS (SELECT * FROM simhash_pairs('SELECT id, sh FROM t.pages WHERE sh IS NOT NULL', 3) EXCEPT SELECT * FROM t.dup_pairs)
       AS refreshed_after_inserts;
SQL

# ---- 2. the updated extension is defined exactly as a fresh install -----------------------------
run -d "$fresh" -c "CREATE EXTENSION simhash"
cat >"$work/catalog.sql" <<'SQL'
-- One line per property of every member of the extension, keyed by signature text.
WITH members AS (
    SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'simhash'),
families AS (
    SELECT objid AS oid FROM members WHERE classid = 'pg_opfamily'::regclass
    UNION SELECT c.opcfamily FROM pg_opclass c JOIN members m ON m.classid = 'pg_opclass'::regclass AND m.objid = c.oid),
lines AS (
    SELECT 'member ' || pg_describe_object(classid, objid, 0) AS line FROM members
    UNION ALL
    SELECT format('extension %s version %s relocatable %s schema %s config %s', extname, extversion,
                  extrelocatable, extnamespace::regnamespace, coalesce(extconfig::regclass[]::text, '-'))
    FROM pg_extension WHERE extname = 'simhash'
    UNION ALL
    SELECT format('function %s: kind %s, language %s, returns %s%s, arguments (%s), all %s, modes %s, names %s, '
                  'volatility %s, strict %s, parallel %s, leakproof %s, security definer %s, cost %s, rows %s, '
                  'support %s, config %s, owner %s, acl %s, bin %s',
                  p.oid::regprocedure, p.prokind, l.lanname, CASE WHEN p.proretset THEN 'setof ' ELSE '' END,
                  p.prorettype::regtype, pg_get_function_arguments(p.oid), p.proallargtypes::regtype[],
                  p.proargmodes, p.proargnames, p.provolatile, p.proisstrict, p.proparallel, p.proleakproof,
                  p.prosecdef, p.procost, p.prorows, p.prosupport::regprocedure, p.proconfig,
                  p.proowner::regrole, p.proacl, p.probin)
    FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
    JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
    UNION ALL
    -- bodies line by line, so that a difference shows as a readable diff
    SELECT format('function %s %s line %s: %s', p.oid::regprocedure, s.kind, lpad(b.n::text, 4), b.line)
    FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid,
    LATERAL (SELECT 'source' AS kind, p.prosrc AS body
             UNION ALL SELECT 'sql body', pg_get_function_sqlbody(p.oid) WHERE p.prosqlbody IS NOT NULL) s,
    LATERAL (SELECT * FROM regexp_split_to_table(s.body, E'\n') WITH ORDINALITY) b(line, n)
    UNION ALL
    SELECT format('aggregate %s: kind %s, direct args %s, transition %s, final %s, combine %s, serial %s, '
                  'deserial %s, moving %s/%s/%s, final extra %s, final modify %s, sort %s, state %s (%s), '
                  'initial %s, moving state %s, moving initial %s',
                  a.aggfnoid::regprocedure, a.aggkind, a.aggnumdirectargs, a.aggtransfn::regprocedure,
                  a.aggfinalfn::regprocedure, a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure,
                  a.aggdeserialfn::regprocedure, a.aggmtransfn::regprocedure, a.aggminvtransfn::regprocedure,
                  a.aggmfinalfn::regprocedure, a.aggfinalextra, a.aggfinalmodify, a.aggsortop::regoperator,
                  a.aggtranstype::regtype, a.aggtransspace, a.agginitval, a.aggmtranstype::regtype, a.aggminitval)
    FROM pg_aggregate a JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = a.aggfnoid
    UNION ALL
    SELECT format('operator %s: kind %s, function %s, result %s, commutator %s, negator %s, restrict %s, '
                  'join %s, merges %s, hashes %s, owner %s',
                  o.oid::regoperator, o.oprkind, o.oprcode::regprocedure, o.oprresult::regtype,
                  o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest::regprocedure,
                  o.oprjoin::regprocedure, o.oprcanmerge, o.oprcanhash, o.oprowner::regrole)
    FROM pg_operator o JOIN members m ON m.classid = 'pg_operator'::regclass AND m.objid = o.oid
    UNION ALL
    SELECT format('type %s: type %s, length %s, by value %s, category %s, preferred %s, delimiter %s, '
                  'input %s, output %s, receive %s, send %s, modin %s, modout %s, analyze %s, subscript %s, '
                  'align %s, storage %s, not null %s, base %s, typmod %s, dims %s, collation %s, default %s, '
                  'element %s, array %s, owner %s, acl %s, constraints [%s]',
                  t.oid::regtype, t.typtype, t.typlen, t.typbyval, t.typcategory, t.typispreferred, t.typdelim,
                  t.typinput::regprocedure, t.typoutput::regprocedure, t.typreceive::regprocedure,
                  t.typsend::regprocedure, t.typmodin::regprocedure, t.typmodout::regprocedure,
                  t.typanalyze::regprocedure, t.typsubscript::regprocedure, t.typalign, t.typstorage,
                  t.typnotnull, t.typbasetype::regtype, t.typtypmod, t.typndims, t.typcollation, t.typdefault,
                  t.typelem::regtype, t.typarray::regtype, t.typowner::regrole, t.typacl,
                  (SELECT string_agg(c.conname || ' ' || pg_get_constraintdef(c.oid), '; ' ORDER BY c.conname)
                   FROM pg_constraint c WHERE c.contypid = t.oid))
    FROM pg_type t JOIN members m ON m.classid = 'pg_type'::regclass AND m.objid = t.oid
    UNION ALL
    SELECT format('cast %s -> %s: function %s, context %s, method %s', c.castsource::regtype,
                  c.casttarget::regtype, c.castfunc::regprocedure, c.castcontext, c.castmethod)
    FROM pg_cast c JOIN members m ON m.classid = 'pg_cast'::regclass AND m.objid = c.oid
    UNION ALL
    SELECT format('operator class %s using %s: for %s, default %s, key %s, family %s', c.opcname, am.amname,
                  c.opcintype::regtype, c.opcdefault, c.opckeytype::regtype, f.opfname)
    FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod JOIN pg_opfamily f ON f.oid = c.opcfamily
    JOIN members m ON m.classid = 'pg_opclass'::regclass AND m.objid = c.oid
    UNION ALL
    SELECT format('operator family %s using %s: operator %s (%s, %s) strategy %s purpose %s sort family %s',
                  f.opfname, am.amname, o.amopopr::regoperator, o.amoplefttype::regtype,
                  o.amoprighttype::regtype, o.amopstrategy, o.amoppurpose,
                  (SELECT sf.opfname FROM pg_opfamily sf WHERE sf.oid = o.amopsortfamily))
    FROM families fs JOIN pg_opfamily f ON f.oid = fs.oid JOIN pg_am am ON am.oid = f.opfmethod
    JOIN pg_amop o ON o.amopfamily = f.oid
    UNION ALL
    SELECT format('operator family %s using %s: function %s (%s, %s) %s', f.opfname, am.amname, p.amprocnum,
                  p.amproclefttype::regtype, p.amprocrighttype::regtype, p.amproc::regprocedure)
    FROM families fs JOIN pg_opfamily f ON f.oid = fs.oid JOIN pg_am am ON am.oid = f.opfmethod
    JOIN pg_amproc p ON p.amprocfamily = f.oid
    UNION ALL
    SELECT format('access method %s: type %s, handler %s', a.amname, a.amtype, a.amhandler::regprocedure)
    FROM pg_am a JOIN members m ON m.classid = 'pg_am'::regclass AND m.objid = a.oid
    UNION ALL
    SELECT format('relation %s: kind %s, columns [%s], definition [%s]', c.oid::regclass, c.relkind,
                  (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
                   FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
                  CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END)
    FROM pg_class c JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid
    UNION ALL
    SELECT format('comment on %s: %s', pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description)
    FROM pg_description d JOIN members m ON m.classid = d.classoid AND m.objid = d.objoid
    UNION ALL
    SELECT format('initial privileges of %s: %s %s', pg_describe_object(i.classoid, i.objoid, i.objsubid),
                  i.privtype, i.initprivs)
    FROM pg_init_privs i JOIN members m ON m.classid = i.classoid AND m.objid = i.objoid)
SELECT l FROM (SELECT replace(replace(line, E'\r', '\r'), E'\n', '\n') AS l FROM lines) x ORDER BY l COLLATE "C";
SQL
psql -X -At -v ON_ERROR_STOP=1 -d "$old" -f "$work/catalog.sql" >"$work/updated.txt"
psql -X -At -v ON_ERROR_STOP=1 -d "$fresh" -f "$work/catalog.sql" >"$work/fresh.txt"
sed -i "s/ version $got / version X /" "$work/updated.txt" "$work/fresh.txt"
for kind in member function operator type cast 'operator class' 'operator family' 'access method' comment; do
    grep -q "^$kind " "$work/fresh.txt" || { echo "the catalog description has no '$kind' line: the query is broken"; exit 1; }
done
if ! diff -u --label "1.0 updated to $got" --label "fresh $default_version" "$work/updated.txt" "$work/fresh.txt"; then
    echo "the updated extension differs from a fresh install (lines above): mirror the install-script change in src/install/versions/simhash--*--$default_version.sql"
    exit 1
fi
echo "all $(wc -l <"$work/fresh.txt") catalog lines of the updated extension equal a fresh install's"
