-- simhash 1.1 -> 1.2 (ALTER EXTENSION simhash UPDATE TO '1.2')
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.2'" to load this file. \quit

-- Each change of 1.2 has its own section below, headed "-- ===== <topic> =====", and brings an
-- installed 1.1 to exactly what a fresh 1.2 install creates (test/scripts/upgrade.sh checks it).

-- ===== distributed all-pairs =====
-- New functions: permuted-table keys, the owning table of a pair, the pairs of one key group and a
-- node's rows grouped by key, so a cluster runs the all-pairs job on its nodes. Nothing to rebuild.
CREATE FUNCTION simhash_table_keys(sh simhash, k integer, blocks integer) RETURNS bigint[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_key_table(key bigint) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_pair_table(a simhash, b simhash, k integer, blocks integer) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_group_pairs(key bigint, ids bigint[], hashes simhash[], k integer, blocks integer)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer)
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
CREATE FUNCTION simhash_group_pairs(key bigint, key_rows bytea, k integer, blocks integer)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer)
    AS 'MODULE_PATHNAME', 'simhash_group_pairs_packed' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
CREATE FUNCTION simhash_key_groups(ids bigint[], hashes simhash[], k integer, blocks integer)
    RETURNS TABLE (key bigint, key_rows bytea)
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION simhash_table_keys(simhash, integer, integer) IS
    'the row''s key in each permuted table (every choice of blocks - k of the blocks): rows within k share a key';
COMMENT ON FUNCTION simhash_key_table(bigint) IS
    'the permuted table a key of simhash_table_keys belongs to (0-based)';
COMMENT ON FUNCTION simhash_pair_table(simhash, simhash, integer, integer) IS
    'the permuted table that owns a pair: the first whose blocks both agree on; NULL when more than k apart';
COMMENT ON FUNCTION simhash_group_pairs(bigint, bigint[], simhash[], integer, integer) IS
    'the pairs within k among the rows of one key that the key''s table owns: each pair once over all keys';
COMMENT ON FUNCTION simhash_group_pairs(bigint, bytea, integer, integer) IS
    'the same over a key''s rows packed by simhash_key_groups (parts from several nodes joined with string_agg)';
COMMENT ON FUNCTION simhash_key_groups(bigint[], simhash[], integer, integer) IS
    'the rows grouped by their keys of simhash_table_keys, one row a key with its rows packed (16 bytes each): a node''s part of the shuffle in bulk';

-- ===== near-duplicate-aware ingestion =====
-- New function: simhash_lock_neighbourhood serializes inserters of possible near-duplicates.
-- Nothing to rebuild.
CREATE FUNCTION simhash_lock_neighbourhood(sh simhash, k integer DEFAULT 5) RETURNS integer
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    lock_key bigint;
    taken integer := 0;
BEGIN
    -- The keys are mixed so that they do not collide with an application's small lock numbers.
    FOR lock_key IN
        SELECT DISTINCT pg_catalog.hashint8extended(b, 3263827) FROM pg_catalog.unnest(@extschema@.simhash_band_keys(sh, k)) b
        ORDER BY 1
    LOOP
        PERFORM pg_catalog.pg_advisory_xact_lock(lock_key);
        taken := taken + 1;
    END LOOP;
    RETURN taken;
END
$$;

COMMENT ON FUNCTION simhash_lock_neighbourhood(simhash, integer) IS
    'locks, until the transaction ends, every page that could lie within k bits of sh: run it in its own statement before inserting and checking sh';

-- ===== no two rows within k bits: the && operator and its GiST class =====
-- New objects for EXCLUDE USING gist (hamming_ball(sh, k) WITH &&). Nothing to rebuild.
-- "No two rows within k bits": EXCLUDE USING gist (hamming_ball(sh, k) WITH &&). a && b holds when
-- each center lies in the other ball (within the smaller radius); commutative, as an exclusion
-- constraint's operator must be.
CREATE FUNCTION hamming_balls_near(hamming_ball, hamming_ball) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
    LEFTARG = hamming_ball, RIGHTARG = hamming_ball, FUNCTION = hamming_balls_near,
    COMMUTATOR = &&, RESTRICT = contsel, JOIN = contjoinsel);
COMMENT ON FUNCTION hamming_balls_near(hamming_ball, hamming_ball) IS
    'each center lies in the other ball: hamming(centers) <= the smaller radius';
COMMENT ON OPERATOR &&(hamming_ball, hamming_ball) IS
    'the centers are within the smaller radius: with balls of radius k, the rows are within k bits';

-- GiST over hamming_ball, for the exclusion constraint: a ball is stored as its center, in the
-- keys of simhash_gist_ops, whose support functions it shares.
CREATE FUNCTION hamming_ball_gist_compress(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming_ball_gist_consistent(internal, hamming_ball, smallint, oid, internal) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS simhash_ball_ops DEFAULT FOR TYPE hamming_ball USING gist AS
    OPERATOR 3 && (hamming_ball, hamming_ball),
    FUNCTION 1 hamming_ball_gist_consistent(internal, hamming_ball, smallint, oid, internal),
    FUNCTION 2 simhash_gist_union(internal, internal),
    FUNCTION 3 hamming_ball_gist_compress(internal),
    FUNCTION 5 simhash_gist_penalty(internal, internal, internal),
    FUNCTION 6 simhash_gist_picksplit(internal, internal),
    FUNCTION 7 simhash_gist_same(simhash, simhash, internal),
    STORAGE simhash;
COMMENT ON FUNCTION hamming_ball_gist_compress(internal) IS 'GiST support: a ball is stored as its center';
COMMENT ON FUNCTION hamming_ball_gist_consistent(internal, hamming_ball, smallint, oid, internal) IS
    'GiST support: centers within the query ball''s radius (the row''s own radius is rechecked)';
COMMENT ON OPERATOR CLASS simhash_ball_ops USING gist IS
    'hamming_ball && hamming_ball: the index of EXCLUDE USING gist (hamming_ball(sh, k) WITH &&)';

-- ===== confirmed duplicates: the resemblance sketch and the confirmed jobs =====
-- A new type (resemblance_sketch), its page functions, resemblance(), and the confirmed forms of
-- simhash_pairs and simhash_clusters. Nothing to rebuild.
-- The second, confirming stage behind simhash (README "Confirmed duplicates"): it estimates the
-- shingle resemblance J of two pages far more precisely than 64 bits can, and runs only on
-- simhash's candidates.
CREATE TYPE resemblance_sketch;

CREATE FUNCTION resemblance_sketch_in(cstring) RETURNS resemblance_sketch
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_out(resemblance_sketch) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_recv(internal) RETURNS resemblance_sketch
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_send(resemblance_sketch) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE resemblance_sketch (
    INPUT = resemblance_sketch_in,
    OUTPUT = resemblance_sketch_out,
    RECEIVE = resemblance_sketch_recv,
    SEND = resemblance_sketch_send,
    INTERNALLENGTH = 64,
    ALIGNMENT = char,
    STORAGE = plain
);

CREATE FUNCTION resemblance_sketch_eq(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_ne(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR = (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);

-- The same tokenizer, shingles and options as simhash(text).
CREATE FUNCTION resemblance_sketch(content text, shingle text DEFAULT 'word', size integer DEFAULT 3,
                                   fold_case boolean DEFAULT true)
    RETURNS resemblance_sketch
    AS 'MODULE_PATHNAME', 'resemblance_sketch_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_html(html text, shingle text DEFAULT 'word', size integer DEFAULT 3,
                                        fold_case boolean DEFAULT true)
    RETURNS resemblance_sketch
    AS 'MODULE_PATHNAME', 'resemblance_sketch_html' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance(a resemblance_sketch, b resemblance_sketch) RETURNS double precision
    AS 'MODULE_PATHNAME', 'resemblance_sketch_resemblance' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON TYPE resemblance_sketch IS
    'resemblance sketch of a page: 512 one-bit min-hashes (64 bytes); text form 128 hex digits';
COMMENT ON FUNCTION resemblance_sketch_in(cstring) IS 'parses 128 hexadecimal digits';
COMMENT ON FUNCTION resemblance_sketch_out(resemblance_sketch) IS 'formats as 128 lowercase hexadecimal digits';
COMMENT ON FUNCTION resemblance_sketch_recv(internal) IS 'binary input: the 64 bytes';
COMMENT ON FUNCTION resemblance_sketch_send(resemblance_sketch) IS 'binary output: the 64 bytes';
COMMENT ON FUNCTION resemblance_sketch_eq(resemblance_sketch, resemblance_sketch) IS 'implementation of = for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_ne(resemblance_sketch, resemblance_sketch) IS 'implementation of <> for resemblance_sketch';
COMMENT ON OPERATOR = (resemblance_sketch, resemblance_sketch) IS 'equal';
COMMENT ON OPERATOR <> (resemblance_sketch, resemblance_sketch) IS 'not equal';
COMMENT ON FUNCTION resemblance_sketch(text, text, integer, boolean) IS
    'resemblance sketch of page text, over the features simhash(text) uses';
COMMENT ON FUNCTION resemblance_sketch_html(text, text, integer, boolean) IS
    'resemblance sketch of an HTML page: the sketch of its visible text (html_text)';
COMMENT ON FUNCTION resemblance(resemblance_sketch, resemblance_sketch) IS
    'estimated shingle resemblance (Jaccard) of two pages, 0..1 in steps of 1/256';

-- source: SQL text returning (id bigint|integer|smallint, sh simhash|bigint, sketch resemblance_sketch).
-- A pair within k bits is kept only if resemblance(sketches) >= min_resemblance.
CREATE FUNCTION simhash_pairs_confirmed(source text, k integer DEFAULT 5,
                                        min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer, resemblance double precision)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION simhash_clusters_confirmed(source text, k integer DEFAULT 5,
                                           min_resemblance double precision DEFAULT 0.87,
                                           singletons boolean DEFAULT false)
    RETURNS TABLE (id bigint, cluster_id bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION simhash_pairs_confirmed(text, integer, double precision) IS
    'every pair of source rows (id, sh, sketch) within Hamming distance k whose estimated resemblance is at least min_resemblance, with the estimate';
COMMENT ON FUNCTION simhash_clusters_confirmed(text, integer, double precision, boolean) IS
    'connected components of the confirmed within-k graph: cluster_id = smallest id in the cluster';

-- ===== confirmed duplicates in the threshold analysis =====
-- New functions: the threshold pairs with their resemblance, the confirmed histogram, and the
-- quadrants and sweep for simhash alone and confirmed. Nothing to rebuild.
-- The same sources and the same search_path rule as 60_analysis.sql: every name the bodies use is
-- schema-qualified, because a source runs under the caller's search_path.

-- Every pair under either threshold (simhash_threshold_pairs) with the resemblance estimate of its
-- sketches; source (id, sh, fp, sk). Rows without a sketch are left out.
CREATE FUNCTION simhash_threshold_pairs_confirmed(source text, k integer DEFAULT 5, d integer DEFAULT 6)
    RETURNS TABLE (id_a bigint, id_b bigint, fp_diff integer, sh_diff integer, resemblance double precision)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
BEGIN
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
COMMENT ON FUNCTION simhash_threshold_pairs_confirmed(text, integer, integer) IS
    'every pair with simhash distance <= k or fingerprint difference <= d, from a source (id, sh, fp, sk), with the sketches'' resemblance';

-- Pairs per (fingerprint difference, simhash difference, confirmed) cell, from a pair source
-- (fp_diff, sh_diff, resemblance): confirmed = resemblance >= min_resemblance.
CREATE FUNCTION simhash_confirmed_histogram(source text, min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (fp_diff integer, sh_diff integer, confirmed boolean, pairs bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    cell pg_catalog.record;
    message pg_catalog.text;
BEGIN
    IF NOT (min_resemblance OPERATOR(pg_catalog.>=) 0 AND min_resemblance OPERATOR(pg_catalog.<=) 1) THEN
        RAISE EXCEPTION 'min_resemblance must be between 0 and 1, got %', min_resemblance USING ERRCODE = '22023';
    END IF;
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
COMMENT ON FUNCTION simhash_confirmed_histogram(text, double precision) IS
    'pairs per (fingerprint difference, simhash difference, confirmed) cell, from a pair source (fp_diff, sh_diff, resemblance)';

-- The quadrants of simhash_quadrants twice: for simhash alone and for simhash confirmed (a pair is
-- a simhash duplicate when sh_diff <= k and, confirmed, resemblance >= min_resemblance).
CREATE FUNCTION simhash_quadrants_confirmed(source text, d integer DEFAULT 6, k integer DEFAULT 5,
                                            min_resemblance double precision DEFAULT 0.87,
                                            total_pairs bigint DEFAULT NULL)
    RETURNS TABLE (rule text, quadrant text, fingerprints_say text, rule_says text, pairs bigint)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
DECLARE
    -- counts[rule * 4 + q]: rule 0 simhash, 1 simhash confirmed; q 1 both, 2 simhash only,
    -- 3 fingerprints only, 4 neither.
    counts bigint[] := '{0,0,0,0,0,0,0,0}';
    seen bigint := 0;
    names pg_catalog.text[] := '{both duplicate,simhash only,fingerprints only,neither}';
    fp_says pg_catalog.text[] := '{duplicate,different,duplicate,different}';
    rule_says_q pg_catalog.text[] := '{duplicate,duplicate,different,different}';
    cell pg_catalog.record;
    fp_dup boolean;
    sh_dup boolean;
    q integer;
BEGIN
    IF source IS NULL OR d IS NULL OR k IS NULL OR min_resemblance IS NULL THEN
        RAISE EXCEPTION 'source, d, k and min_resemblance must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR k OPERATOR(pg_catalog.<) 0 OR k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and k in 0..64, got d = %, k = %', d, k USING ERRCODE = '22023';
    END IF;
    FOR cell IN SELECT * FROM @extschema@.simhash_confirmed_histogram(source, min_resemblance) LOOP
        seen := seen OPERATOR(pg_catalog.+) cell.pairs;
        fp_dup := cell.fp_diff OPERATOR(pg_catalog.<=) d;
        FOR rule_index IN 0..1 LOOP
            sh_dup := cell.sh_diff OPERATOR(pg_catalog.<=) k AND (rule_index OPERATOR(pg_catalog.=) 0 OR cell.confirmed);
            q := CASE WHEN fp_dup AND sh_dup THEN 1 WHEN sh_dup THEN 2 WHEN fp_dup THEN 3 ELSE 4 END;
            counts[rule_index OPERATOR(pg_catalog.*) 4 OPERATOR(pg_catalog.+) q] :=
                counts[rule_index OPERATOR(pg_catalog.*) 4 OPERATOR(pg_catalog.+) q] OPERATOR(pg_catalog.+) cell.pairs;
        END LOOP;
    END LOOP;
    IF total_pairs IS NOT NULL THEN
        IF total_pairs OPERATOR(pg_catalog.<) seen THEN
            RAISE EXCEPTION 'total_pairs (%) is smaller than the % pairs of the source', total_pairs, seen
                USING ERRCODE = '22023';
        END IF;
        counts[4] := counts[4] OPERATOR(pg_catalog.+) (total_pairs OPERATOR(pg_catalog.-) seen);
        counts[8] := counts[8] OPERATOR(pg_catalog.+) (total_pairs OPERATOR(pg_catalog.-) seen);
    END IF;
    FOR rule_index IN 0..1 LOOP
        FOR q IN 1..4 LOOP
            rule := CASE WHEN rule_index OPERATOR(pg_catalog.=) 0 THEN 'simhash' ELSE 'simhash confirmed' END;
            quadrant := names[q];
            fingerprints_say := fp_says[q];
            rule_says := rule_says_q[q];
            pairs := counts[rule_index OPERATOR(pg_catalog.*) 4 OPERATOR(pg_catalog.+) q];
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;
COMMENT ON FUNCTION simhash_quadrants_confirmed(text, integer, integer, double precision, bigint) IS
    'pairs in each quadrant of thresholds for simhash alone and simhash confirmed (resemblance >= min_resemblance), from (fp_diff, sh_diff, resemblance)';

-- Per k: what simhash alone flags, what simhash confirmed flags, and how each agrees with the
-- fingerprints (flagged though fingerprints say different; fingerprint duplicates missed).
CREATE FUNCTION simhash_threshold_sweep_confirmed(source text, d integer DEFAULT 6, max_k integer DEFAULT 10,
                                                  min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (k integer, fp_flagged bigint, flagged bigint, flagged_fp_different bigint,
                   fp_flagged_missed bigint, confirmed bigint, confirmed_fp_different bigint,
                   confirmed_fp_missed bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
BEGIN
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR max_k OPERATOR(pg_catalog.<) 0 OR max_k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and max_k in 0..64, got d = %, max_k = %', d, max_k
            USING ERRCODE = '22023';
    END IF;
    RETURN QUERY
    WITH h AS MATERIALIZED (SELECT * FROM @extschema@.simhash_confirmed_histogram(source, min_resemblance))
    SELECT g.k,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k
                                                     AND h.fp_diff OPERATOR(pg_catalog.>) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.>) g.k
                                                     AND h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k AND h.confirmed), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k AND h.confirmed
                                                     AND h.fp_diff OPERATOR(pg_catalog.>) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE NOT (h.sh_diff OPERATOR(pg_catalog.<=) g.k AND h.confirmed)
                                                     AND h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint
    FROM pg_catalog.generate_series(0, max_k) g(k) LEFT JOIN h ON true
    GROUP BY g.k ORDER BY g.k;
END $$;
COMMENT ON FUNCTION simhash_threshold_sweep_confirmed(text, integer, integer, double precision) IS
    'per simhash k: fingerprint duplicates, and for simhash alone and confirmed the pairs flagged, flagged though fingerprints say different (> d), fingerprint duplicates missed';

-- ===== html_text: character references as browsers decode them =====
-- No catalog change: html_text (and so simhash_html, fingerprints_html, resemblance_sketch_html)
-- now decodes numeric and legacy named references without their ';' and C1 numeric references as
-- windows-1252. Stored values computed from HTML with such references change: recompute them
-- (CHANGELOG.md, 1.2).

-- ===== search_path: no unqualified type in the analysis functions' declarations =====
-- A PL/pgSQL variable declared "text" took the type named text first on the caller's search_path,
-- so a planted domain's check ran with the caller's rights: the variables are pg_catalog.text now.
-- The whole 1.1 bodies, otherwise unchanged. Nothing to rebuild.
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
