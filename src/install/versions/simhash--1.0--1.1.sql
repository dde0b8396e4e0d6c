-- simhash 1.0 -> 1.1 (ALTER EXTENSION simhash UPDATE TO '1.1')
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.1'" to load this file. \quit

-- ===== search_path hardening (CVE-2018-1058 / CVE-2020-14350 class) =====
-- The SQL and PL/pgSQL functions resolved format(), unnest(), count(), operators and types through
-- the caller's search_path, so a role able to create objects in any schema of that path could run
-- code as the caller. They now name everything with its schema (the ones that run a source, which
-- keeps the caller's path) or pin search_path = pg_catalog, pg_temp (the others). Same signatures,
-- results and comments as in 1.0: only the bodies and the pinned setting change. Nothing to rebuild.
CREATE OR REPLACE FUNCTION simhash_cluster_summary(source text, k integer DEFAULT 5)
    RETURNS TABLE (cluster_id bigint, size bigint, representative bigint)
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    BEGIN ATOMIC
        SELECT c.cluster_id, pg_catalog.count(*), pg_catalog.min(c.id)
        FROM @extschema@.simhash_clusters(source, k) c
        GROUP BY c.cluster_id
        ORDER BY pg_catalog.count(*) DESC, c.cluster_id;
    END;

CREATE OR REPLACE FUNCTION simhash_threshold_pairs(source text, k integer DEFAULT 5, d integer DEFAULT 6)
    RETURNS TABLE (id_a bigint, id_b bigint, fp_diff integer, sh_diff integer)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    message text;
BEGIN
    IF k OPERATOR(pg_catalog.<) 0 OR k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'simhash radius k must be between 0 and 64, got %', k USING ERRCODE = '22023';
    END IF;
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 127 THEN
        RAISE EXCEPTION 'fingerprint difference d must be between 0 and 127, got %', d USING ERRCODE = '22023';
    END IF;
    RETURN QUERY EXECUTE pg_catalog.format($q$
        WITH src AS MATERIALIZED (SELECT s.id::bigint AS id, s.sh, s.fp FROM (%1$s) s(id, sh, fp)
                                  WHERE s.id IS NOT NULL AND s.sh IS NOT NULL AND s.fp IS NOT NULL),
        keys AS (SELECT id, pg_catalog.unnest(@extschema@.fingerprint_band_keys(fp, %3$s)) AS key FROM src),
        candidates AS (
            SELECT p.id_a, p.id_b FROM @extschema@.simhash_pairs(%4$L, %2$s) p
            UNION
            SELECT a.id, b.id FROM keys a JOIN keys b
                ON a.key OPERATOR(pg_catalog.=) b.key AND a.id OPERATOR(pg_catalog.<) b.id)
        SELECT c.id_a, c.id_b, @extschema@.fingerprint_diff(a.fp, b.fp), @extschema@.hamming(a.sh, b.sh)::integer
        FROM candidates c JOIN src a ON a.id OPERATOR(pg_catalog.=) c.id_a
                          JOIN src b ON b.id OPERATOR(pg_catalog.=) c.id_b
        WHERE @extschema@.hamming(a.sh, b.sh) OPERATOR(@extschema@.<=) %2$s
           OR @extschema@.fingerprint_diff(a.fp, b.fp) OPERATOR(pg_catalog.<=) %3$s
        ORDER BY 1, 2 $q$, source, k, d, pg_catalog.format('SELECT id, sh FROM (%s) s(id, sh, fp)', source));
EXCEPTION WHEN undefined_table OR undefined_function OR undefined_object THEN
    -- The source's error under an empty search_path (pg_restore) says why: see src/pg/common/source_hint.h.
    IF EXISTS (SELECT FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) s(nsp)
               WHERE s.nsp OPERATOR(pg_catalog.<>) 'pg_catalog' AND NOT pg_catalog.starts_with(s.nsp, 'pg_temp')) THEN
        RAISE;
    END IF;
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT;
    RAISE EXCEPTION USING MESSAGE = message, ERRCODE = SQLSTATE,
        HINT = 'The source query runs with the caller''s search_path, which names no schema here '
               '(pg_restore and REFRESH MATERIALIZED VIEW during a restore run with an empty one). '
               'Schema-qualify what the source names, e.g. SELECT id, sh FROM public.pages, or select from '
               'a schema-qualified view.';
END $$;

CREATE OR REPLACE FUNCTION simhash_check_differences(fp_diff bigint, sh_diff bigint) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF fp_diff IS NULL OR sh_diff IS NULL THEN
        RAISE EXCEPTION 'a pair has a NULL difference' USING ERRCODE = '22004',
            HINT = 'The source must return (fp_diff, sh_diff) for every pair.';
    END IF;
    IF fp_diff NOT BETWEEN 0 AND 128 OR sh_diff NOT BETWEEN 0 AND 64 THEN
        RAISE EXCEPTION 'a pair has differences (%, %) outside fingerprint 0..128, simhash 0..64', fp_diff, sh_diff
            USING ERRCODE = '22023';
    END IF;
END $$;

CREATE OR REPLACE FUNCTION simhash_joint_histogram(source text)
    RETURNS TABLE (fp_diff integer, sh_diff integer, pairs bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    cell pg_catalog.record;
    message text;
BEGIN
    FOR cell IN EXECUTE pg_catalog.format(
        'SELECT s.f AS f, s.h AS h, pg_catalog.count(*) AS n FROM (%s) s(f, h) GROUP BY 1, 2 ORDER BY 1, 2',
        source)
    LOOP
        -- Differences are counts: a fractional one is refused, never rounded into a cell.
        IF cell.f::pg_catalog.numeric OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.f::pg_catalog.numeric)
           OR cell.h::pg_catalog.numeric OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.h::pg_catalog.numeric) THEN
            RAISE EXCEPTION 'a pair has differences (%, %) that are not whole numbers', cell.f, cell.h
                USING ERRCODE = '22P02',
                      HINT = 'The differences count differing fingerprint entries and simhash bits.';
        END IF;
        PERFORM @extschema@.simhash_check_differences(cell.f::pg_catalog.int8, cell.h::pg_catalog.int8);
        fp_diff := cell.f::pg_catalog.int8; sh_diff := cell.h::pg_catalog.int8; pairs := cell.n;
        RETURN NEXT;
    END LOOP;
EXCEPTION WHEN undefined_table OR undefined_function OR undefined_object THEN
    -- The source's error under an empty search_path (pg_restore) says why: see src/pg/common/source_hint.h.
    IF EXISTS (SELECT FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) s(nsp)
               WHERE s.nsp OPERATOR(pg_catalog.<>) 'pg_catalog' AND NOT pg_catalog.starts_with(s.nsp, 'pg_temp')) THEN
        RAISE;
    END IF;
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT;
    RAISE EXCEPTION USING MESSAGE = message, ERRCODE = SQLSTATE,
        HINT = 'The source query runs with the caller''s search_path, which names no schema here '
               '(pg_restore and REFRESH MATERIALIZED VIEW during a restore run with an empty one). '
               'Schema-qualify what the source names, e.g. SELECT id, sh FROM public.pages, or select from '
               'a schema-qualified view.';
END $$;

CREATE OR REPLACE FUNCTION simhash_quadrants(source text, d integer DEFAULT 6, k integer DEFAULT 5,
                                  total_pairs bigint DEFAULT NULL)
    RETURNS TABLE (quadrant text, fingerprints_say text, simhash_says text, pairs bigint)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
DECLARE
    both_dup bigint := 0; sh_only bigint := 0; fp_only bigint := 0; neither bigint := 0; seen bigint := 0;
    cell pg_catalog.record;
BEGIN
    IF source IS NULL OR d IS NULL OR k IS NULL THEN
        RAISE EXCEPTION 'source, d and k must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR k OPERATOR(pg_catalog.<) 0 OR k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and k in 0..64, got d = %, k = %', d, k USING ERRCODE = '22023';
    END IF;
    FOR cell IN SELECT * FROM @extschema@.simhash_joint_histogram(source) LOOP
        seen := seen OPERATOR(pg_catalog.+) cell.pairs;
        IF cell.fp_diff OPERATOR(pg_catalog.<=) d AND cell.sh_diff OPERATOR(pg_catalog.<=) k THEN
            both_dup := both_dup OPERATOR(pg_catalog.+) cell.pairs;
        ELSIF cell.sh_diff OPERATOR(pg_catalog.<=) k THEN sh_only := sh_only OPERATOR(pg_catalog.+) cell.pairs;
        ELSIF cell.fp_diff OPERATOR(pg_catalog.<=) d THEN fp_only := fp_only OPERATOR(pg_catalog.+) cell.pairs;
        ELSE neither := neither OPERATOR(pg_catalog.+) cell.pairs;
        END IF;
    END LOOP;
    IF total_pairs IS NOT NULL THEN
        IF total_pairs OPERATOR(pg_catalog.<) seen THEN
            RAISE EXCEPTION 'total_pairs (%) is smaller than the % pairs of the source', total_pairs, seen
                USING ERRCODE = '22023';
        END IF;
        neither := neither OPERATOR(pg_catalog.+) (total_pairs OPERATOR(pg_catalog.-) seen);
    END IF;
    RETURN QUERY VALUES ('both duplicate', 'duplicate', 'duplicate', both_dup),
                        ('simhash only', 'different', 'duplicate', sh_only),
                        ('fingerprints only', 'duplicate', 'different', fp_only),
                        ('neither', 'different', 'different', neither);
END $$;

CREATE OR REPLACE FUNCTION simhash_threshold_sweep(source text, d integer DEFAULT 6, max_k integer DEFAULT 10,
                                        allowed bigint DEFAULT 0)
    RETURNS TABLE (k integer, flagged bigint, flagged_fp_different bigint, fp_flagged_missed bigint,
                   recommended boolean)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
BEGIN
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR max_k OPERATOR(pg_catalog.<) 0 OR max_k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and max_k in 0..64, got d = %, max_k = %', d, max_k
            USING ERRCODE = '22023';
    END IF;
    IF allowed OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'allowed must not be negative, got %', allowed USING ERRCODE = '22023';
    END IF;
    RETURN QUERY
    WITH h AS (SELECT * FROM @extschema@.simhash_joint_histogram(source)),
    sweep AS (
        SELECT g.k,
               coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k), 0)::bigint
                   AS flagged,
               coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k
                                                         AND h.fp_diff OPERATOR(pg_catalog.>) d), 0)::bigint
                   AS fp_different,
               coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.>) g.k
                                                         AND h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint
                   AS missed
        FROM pg_catalog.generate_series(0, max_k) g(k) LEFT JOIN h ON true
        GROUP BY g.k)
    SELECT s.k, s.flagged, s.fp_different, s.missed,
           coalesce(s.k OPERATOR(pg_catalog.=) (SELECT pg_catalog.max(s2.k) FROM sweep s2
                                                WHERE s2.fp_different OPERATOR(pg_catalog.<=) allowed), false)
    FROM sweep s ORDER BY s.k;
END $$;
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

-- ===== simhash_mih_check: least privilege =====
-- It reads every page of an index, like amcheck's functions: EXECUTE is no longer PUBLIC's, and the
-- caller must also be able to read the index's table (checked in C before any lock is taken).
REVOKE EXECUTE ON FUNCTION simhash_mih_check(regclass) FROM PUBLIC;

-- ===== simhash_distance refuses values outside 0..64 =====
-- Its text and binary input were int4's and accepted any integer. Replacing the functions keeps
-- the type (and any stored value) as it is.
CREATE OR REPLACE FUNCTION simhash_distance_in(cstring) RETURNS simhash_distance
    AS 'MODULE_PATHNAME', 'simhash_distance_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION simhash_distance_recv(internal) RETURNS simhash_distance
    AS 'MODULE_PATHNAME', 'simhash_distance_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
