-- simhash 1.0 -> 1.1 (ALTER EXTENSION simhash UPDATE TO '1.1')
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.1'" to load this file. \quit

-- ===== <-> returns integer (clients and BI tools see a number) =====
-- In 1.0, sh <-> q returned the extension's own type simhash_distance, which drivers that do not
-- know it deliver as text (psycopg2: '18') or an opaque object (JDBC). 1.1's <-> returns integer
-- and its index ordering uses the built-in integer_ops. An operator's result type cannot be
-- altered, so <-> and its function are dropped and created again, and both index operator
-- families get the new operator. Indexes stay as they are (no REINDEX): they store no distances,
-- and the planner looks the ordering operator up in the family for every query.
-- A view, rule, default, constraint or function body that uses <-> (or the function
-- simhash_distance(simhash, simhash)) would be dropped with it, so the update refuses instead and
-- names them. The type simhash_distance stays (columns of it stay readable).
DO $$
DECLARE
    op  pg_catalog.oid := pg_catalog.to_regoperator('<->(simhash, simhash)');
    fn  pg_catalog.oid := pg_catalog.to_regprocedure('simhash_distance(simhash, simhash)');
    users text;
BEGIN
    SELECT pg_catalog.string_agg(DISTINCT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid), ', ')
      INTO users
      FROM pg_catalog.pg_depend d
     WHERE ((d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass
             AND d.refobjid OPERATOR(pg_catalog.=) op)
         OR (d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
             AND d.refobjid OPERATOR(pg_catalog.=) fn))
       AND d.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_amop'::pg_catalog.regclass
       AND NOT (d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass
                AND d.objid OPERATOR(pg_catalog.=) op);
    IF users IS NOT NULL THEN
        RAISE EXCEPTION 'simhash 1.1 changes the result type of the operator <-> from simhash_distance to integer, and these objects use it: %', users
            USING ERRCODE = 'dependent_objects_still_exist',
                  HINT = 'Drop them, run ALTER EXTENSION simhash UPDATE, and create them again (their distance columns become integer). Nothing was changed.';
    END IF;
END
$$;

-- 1.0 made ORDER BY <-> a fixed part of the simhash_mih operator class, which ALTER OPERATOR FAMILY
-- cannot remove (only dropping the class, and with it every index, could). Make that one member
-- loose, exactly as GiST records its ordering operators and as 1.1's install script adds it, so
-- that it can be dropped below; nothing else refers to the dependency.
UPDATE pg_catalog.pg_depend d
   SET refclassid = 'pg_catalog.pg_opfamily'::pg_catalog.regclass,
       refobjid = a.amopfamily,
       deptype = 'a'
  FROM pg_catalog.pg_amop a
 WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_amop'::pg_catalog.regclass
   AND d.objid OPERATOR(pg_catalog.=) a.oid
   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_opclass'::pg_catalog.regclass
   AND d.deptype OPERATOR(pg_catalog.=) 'i'
   AND a.amopopr OPERATOR(pg_catalog.=) '<->(simhash, simhash)'::pg_catalog.regoperator
   AND a.amopmethod OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_am WHERE amname OPERATOR(pg_catalog.=) 'simhash_mih');
ALTER OPERATOR FAMILY simhash_gist_ops USING gist DROP OPERATOR 15 (simhash, simhash);
ALTER OPERATOR FAMILY simhash_ops USING simhash_mih DROP OPERATOR 2 (simhash, simhash);
DROP OPERATOR <-> (simhash, simhash);
DROP FUNCTION simhash_distance(simhash, simhash);

CREATE FUNCTION simhash_distance(simhash, simhash) RETURNS integer
    AS 'MODULE_PATHNAME', 'simhash_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION simhash_distance(simhash, simhash) IS 'number of differing bits, 0..64, as integer (the function of <->)';
CREATE OPERATOR <-> (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_distance, COMMUTATOR = <->);
COMMENT ON OPERATOR <->(simhash, simhash) IS 'Hamming distance, 0..64, as integer (ORDER BY sh <-> q uses an index)';

ALTER OPERATOR FAMILY simhash_gist_ops USING gist ADD
    OPERATOR 15 <-> (simhash, simhash) FOR ORDER BY pg_catalog.integer_ops;
ALTER OPERATOR FAMILY simhash_ops USING simhash_mih ADD
    OPERATOR 2 <-> (simhash, simhash) FOR ORDER BY pg_catalog.integer_ops;

COMMENT ON TYPE simhash_distance IS 'a Hamming distance 0..64 as <-> returned it in version 1.0 (now integer), implicitly an integer';
COMMENT ON OPERATOR CLASS simhash_distance_ops USING btree IS 'order of simhash_distance values';
