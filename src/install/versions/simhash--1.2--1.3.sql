-- simhash 1.2 -> 1.3 (ALTER EXTENSION simhash UPDATE TO '1.3')
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.3'" to load this file. \quit

-- Each change of 1.3 has its own section below, headed "-- ===== <topic> =====", and brings an
-- installed 1.2 to exactly what a fresh 1.3 install creates (test/scripts/upgrade.sh checks it).

-- ===== analysis sources =====
-- The PL/pgSQL analysis functions check their source as the C functions do (simhash_check_source),
-- and simhash_joint_histogram reads the source's columns as numeric, so one session can call it
-- with sources of different column types. Nothing to rebuild.
CREATE FUNCTION simhash_check_source(source text) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_check_source(text) IS
    'analysis support: raises an error unless a source query is one SELECT that only reads';

CREATE OR REPLACE FUNCTION simhash_threshold_pairs(source text, k integer DEFAULT 5, d integer DEFAULT 6)
    RETURNS TABLE (id_a bigint, id_b bigint, fp_diff integer, sh_diff integer)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    message pg_catalog.text;
BEGIN
    IF k OPERATOR(pg_catalog.<) 0 OR k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'simhash radius k must be between 0 and 64, got %', k USING ERRCODE = '22023';
    END IF;
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 127 THEN
        RAISE EXCEPTION 'fingerprint difference d must be between 0 and 127, got %', d USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.simhash_check_source(source);
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

CREATE OR REPLACE FUNCTION simhash_joint_histogram(source text)
    RETURNS TABLE (fp_diff integer, sh_diff integer, pairs bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    cell pg_catalog.record;
    message pg_catalog.text;
BEGIN
    PERFORM @extschema@.simhash_check_source(source);
    FOR cell IN EXECUTE pg_catalog.format(
        -- Fixed column types: PL/pgSQL caches the plans of the expressions on cell by the first
        -- call's column types, so the record keeps one shape whatever the source's types are.
        'SELECT s.f::pg_catalog.numeric AS f, s.h::pg_catalog.numeric AS h, pg_catalog.count(*) AS n '
        'FROM (%s) s(f, h) GROUP BY 1, 2 ORDER BY 1, 2',
        source)
    LOOP
        -- Differences are counts: a fractional one is refused, never rounded into a cell.
        IF cell.f OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.f) OR cell.h OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.h) THEN
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

CREATE OR REPLACE FUNCTION simhash_threshold_pairs_confirmed(source text, k integer DEFAULT 5, d integer DEFAULT 6)
    RETURNS TABLE (id_a bigint, id_b bigint, fp_diff integer, sh_diff integer, resemblance double precision)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
BEGIN
    PERFORM @extschema@.simhash_check_source(source);
    RETURN QUERY EXECUTE pg_catalog.format($q$
        WITH src AS MATERIALIZED (SELECT s.id::bigint AS id, s.sk FROM (%1$s) s(id, sh, fp, sk)
                                  WHERE s.id IS NOT NULL AND s.sk IS NOT NULL)
        SELECT t.id_a, t.id_b, t.fp_diff, t.sh_diff, @extschema@.resemblance(a.sk, b.sk)
        FROM @extschema@.simhash_threshold_pairs(%2$L, %3$s, %4$s) t
             JOIN src a ON a.id OPERATOR(pg_catalog.=) t.id_a
             JOIN src b ON b.id OPERATOR(pg_catalog.=) t.id_b
        ORDER BY 1, 2 $q$, source,
        pg_catalog.format('SELECT id, sh, fp FROM (%s) s(id, sh, fp, sk) WHERE s.sk IS NOT NULL', source), k, d);
END $$;

CREATE OR REPLACE FUNCTION simhash_confirmed_histogram(source text, min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (fp_diff integer, sh_diff integer, confirmed boolean, pairs bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    cell pg_catalog.record;
    message pg_catalog.text;
BEGIN
    IF NOT (min_resemblance OPERATOR(pg_catalog.>=) 0 AND min_resemblance OPERATOR(pg_catalog.<=) 1) THEN
        RAISE EXCEPTION 'min_resemblance must be between 0 and 1, got %', min_resemblance USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.simhash_check_source(source);
    FOR cell IN EXECUTE pg_catalog.format(
        -- Fixed column types: the loop's record keeps one shape whatever the source's types.
        'SELECT s.f::pg_catalog.numeric AS f, s.h::pg_catalog.numeric AS h, s.r::pg_catalog.float8 AS r, '
        'pg_catalog.count(*) AS n FROM (%s) s(f, h, r) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3',
        source)
    LOOP
        IF cell.f OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.f) OR cell.h OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.h) THEN
            RAISE EXCEPTION 'a pair has differences (%, %) that are not whole numbers', cell.f, cell.h
                USING ERRCODE = '22P02',
                      HINT = 'The differences count differing fingerprint entries and simhash bits.';
        END IF;
        PERFORM @extschema@.simhash_check_differences(cell.f::pg_catalog.int8, cell.h::pg_catalog.int8);
        IF cell.r IS NULL THEN
            RAISE EXCEPTION 'a pair has a NULL resemblance' USING ERRCODE = '22004',
                HINT = 'The source must return (fp_diff, sh_diff, resemblance) for every pair.';
        END IF;
        IF NOT (cell.r OPERATOR(pg_catalog.>=) 0 AND cell.r OPERATOR(pg_catalog.<=) 1) THEN
            RAISE EXCEPTION 'a pair has resemblance % outside 0..1', cell.r USING ERRCODE = '22023';
        END IF;
        fp_diff := cell.f::pg_catalog.int4; sh_diff := cell.h::pg_catalog.int4;
        confirmed := cell.r OPERATOR(pg_catalog.>=) min_resemblance; pairs := cell.n;
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

-- ===== resemblance_sketch operator classes =====
-- Sketches get an order (of their bytes) and btree and hash operator classes, so that DISTINCT,
-- GROUP BY, UNION, ORDER BY, merge and hash joins and unique indexes work on them. Nothing to rebuild.
CREATE FUNCTION resemblance_sketch_lt(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_le(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_gt(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_ge(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_cmp(resemblance_sketch, resemblance_sketch) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_hash(resemblance_sketch) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_hash_extended(resemblance_sketch, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- A fresh install creates = with HASHES and MERGES. PostgreSQL 15's ALTER OPERATOR cannot set
-- them (17 can), so the update sets the same two flags in the catalog.
UPDATE pg_catalog.pg_operator SET oprcanhash = true, oprcanmerge = true
WHERE oid OPERATOR(pg_catalog.=)
      '@extschema@.=(@extschema@.resemblance_sketch,@extschema@.resemblance_sketch)'::pg_catalog.regoperator;
CREATE OPERATOR < (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
-- Equal sketches are equal bytes, so a btree index may deduplicate them (btequalimage).
CREATE OPERATOR CLASS resemblance_sketch_btree_ops DEFAULT FOR TYPE resemblance_sketch USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 resemblance_sketch_cmp(resemblance_sketch, resemblance_sketch),
    FUNCTION 4 btequalimage(oid);
CREATE OPERATOR CLASS resemblance_sketch_hash_ops DEFAULT FOR TYPE resemblance_sketch USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 resemblance_sketch_hash(resemblance_sketch),
    FUNCTION 2 resemblance_sketch_hash_extended(resemblance_sketch, bigint);

COMMENT ON FUNCTION resemblance_sketch_lt(resemblance_sketch, resemblance_sketch) IS 'implementation of < for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_le(resemblance_sketch, resemblance_sketch) IS 'implementation of <= for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_gt(resemblance_sketch, resemblance_sketch) IS 'implementation of > for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_ge(resemblance_sketch, resemblance_sketch) IS 'implementation of >= for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_cmp(resemblance_sketch, resemblance_sketch) IS
    'btree support: -1, 0 or 1 in the order of the bytes (unsigned, byte 0 first)';
COMMENT ON FUNCTION resemblance_sketch_hash(resemblance_sketch) IS 'hash support: a hash of the 64 bytes';
COMMENT ON FUNCTION resemblance_sketch_hash_extended(resemblance_sketch, bigint) IS
    'extended (seeded) hash support: a hash of the 64 bytes';
COMMENT ON OPERATOR < (resemblance_sketch, resemblance_sketch) IS 'less than (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR <= (resemblance_sketch, resemblance_sketch) IS 'less than or equal (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR > (resemblance_sketch, resemblance_sketch) IS 'greater than (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR >= (resemblance_sketch, resemblance_sketch) IS 'greater than or equal (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR CLASS resemblance_sketch_btree_ops USING btree IS
    'order of resemblance sketches'' bytes (that of their text form): sorting, grouping, unique indexes';
COMMENT ON OPERATOR CLASS resemblance_sketch_hash_ops USING hash IS 'hashing of resemblance sketches';

-- ===== HTML character references =====
-- html_text, simhash_html, fingerprints_html and resemblance_sketch_html decode every named
-- reference of HTML's table. The change is in the library; no SQL object changes. What was stored
-- from these functions must be recomputed (CHANGELOG.md, 1.3).

-- ===== simhash_mih runs =====
-- The index keeps sorted runs (layout 3; a layout 2 index of 1.2 is read as one run and goes on
-- working): functions to merge them and to show them.
CREATE FUNCTION simhash_mih_merge(index regclass) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_mih_merge(regclass) IS 'writes the pending rows of a simhash_mih index as a run and merges every run into one, as gin_clean_pending_list; returns the rows written; the index''s owner only';
CREATE FUNCTION simhash_mih_runs(index regclass,
    OUT run integer, OUT tier integer, OUT rows bigint, OUT table0_pages bigint,
    OUT merging boolean)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE ROWS 8;
COMMENT ON FUNCTION simhash_mih_runs(regclass) IS 'the sorted runs of a simhash_mih index: size tier, rows (dead ones included until a merge), pages of table 0, whether the background worker is merging it into the base run';
CREATE FUNCTION simhash_mih_state(index regclass,
    OUT blocks integer, OUT runs integer, OUT sorted_rows bigint, OUT pending_rows bigint,
    OUT sealed_rows bigint, OUT pending_limit_rows bigint, OUT inserted_rows bigint,
    OUT written_rows bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION simhash_mih_state(regclass) IS 'the runs and unsorted rows of a simhash_mih index, and the rows its flushes and merges wrote (written_rows / inserted_rows is the write amplification)';
-- Merges under way: the worker's, VACUUM's and simhash_mih_merge's (inserters' merges are short and
-- not shown), from params of the VACUUM progress command that pg_stat_progress_vacuum leaves unused
-- (src/pg/index_am/mih_am.h). Like pg_stat_progress_vacuum, a role sees other roles' backends, and
-- the worker, only with pg_read_all_stats.
CREATE VIEW simhash_mih_merge_progress AS
    SELECT s.pid, s.datid, d.datname, s.relid, s.param16::pg_catalog.oid AS indexrelid,
           CASE s.param17 WHEN 1 THEN 'reading runs' WHEN 2 THEN 'writing tables'
                          WHEN 3 THEN 'waiting for scans' END AS phase,
           s.param18 AS rows_total, s.param19 AS rows_done
    FROM pg_catalog.pg_stat_get_progress_info('VACUUM') s
    LEFT JOIN pg_catalog.pg_database d ON d.oid OPERATOR(pg_catalog.=) s.datid
    WHERE s.param16 OPERATOR(pg_catalog.<>) 0;
COMMENT ON VIEW simhash_mih_merge_progress IS 'merges of simhash_mih runs under way: phase (reading runs, writing tables, waiting for scans), rows_total and rows_done (in writing tables: rows times tables); pg_stat_progress_vacuum shows the same pid';
GRANT SELECT ON simhash_mih_merge_progress TO PUBLIC;
-- ===== confirmed jobs: default k = 7 =====
-- simhash_pairs_confirmed and simhash_clusters_confirmed look within 7 bits unless told otherwise:
-- on the development corpora it finds 0.97 of the pairs with J >= 0.9 instead of 0.84-0.88 at
-- precision >= 0.99 (README "Confirmed duplicates"). Nothing to rebuild; calls that give k keep
-- their answers.
CREATE OR REPLACE FUNCTION simhash_pairs_confirmed(source text, k integer DEFAULT 7,
                                                   min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer, resemblance double precision)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE OR REPLACE FUNCTION simhash_clusters_confirmed(source text, k integer DEFAULT 7,
                                                      min_resemblance double precision DEFAULT 0.87,
                                                      singletons boolean DEFAULT false)
    RETURNS TABLE (id bigint, cluster_id bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

-- ===== simhash_mih_check heapallindexed =====
-- simhash_mih_check(index, heapallindexed) also checks the heap side, as amcheck's option does:
-- every row of the table with a hash is in the index with it. A new argument is a new signature,
-- so the function is made again (EXECUTE granted on the old one must be granted again).
DROP FUNCTION simhash_mih_check(regclass);
CREATE FUNCTION simhash_mih_check(index regclass, heapallindexed boolean DEFAULT false,
    OUT blocks integer, OUT sorted_rows bigint, OUT live_sorted_rows bigint, OUT pending_rows bigint,
    OUT pages bigint, OUT free_pages bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL UNSAFE;
-- PARALLEL UNSAFE: on a hot standby each pass runs in a subtransaction, which no statement in
-- parallel mode may start (the check beside a count(*) of a big table would otherwise fail there).
COMMENT ON FUNCTION simhash_mih_check(regclass, boolean) IS 'verifies a simhash_mih index (order, directory, cross-table consistency) and reports its shape; with heapallindexed, also that every row of its table with a hash is in it; index_corrupted error on a violation';
REVOKE EXECUTE ON FUNCTION simhash_mih_check(regclass, boolean) FROM PUBLIC;
