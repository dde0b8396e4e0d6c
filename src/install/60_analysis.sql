-- ===== Choosing the threshold: simhash against the legacy fingerprints =====================
-- Sources are SQL text, as for the crawl-scale jobs. Pair sources return one row per pair of pages
-- with (fp_diff, sh_diff) as their first two columns; histogram sources (fp_diff, sh_diff, pairs).
--
-- search_path (CVE-2018-1058, CVE-2020-14350): a source is the caller's own SQL and runs under the
-- caller's search_path, so the functions that run one cannot pin theirs. Their bodies instead name
-- every function, operator and type they use with its schema (pg_catalog.format,
-- OPERATOR(pg_catalog.<=), @extschema@.hamming, pg_catalog.record): nothing a role plants in a
-- schema of the caller's path is ever resolved. Functions that run no source pin
-- search_path = pg_catalog, pg_temp. sql/search_path_hostile.sql plants look-alikes of every name.

CREATE FUNCTION simhash_sample_pairs(source text, pairs bigint, seed bigint DEFAULT 0,
                                     within_group boolean DEFAULT false)
    RETURNS TABLE (id_a bigint, id_b bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_sample_pairs(text, bigint, bigint, boolean) IS
    'uniformly random pairs of distinct pages (id_a < id_b) from a source (id[, group]), reproducible by seed';

-- Every pair of pages under either threshold, with both differences: simhash_pairs for the simhash
-- side and a band-key join for the fingerprint side, so the disagreement corners are exact.
CREATE FUNCTION simhash_threshold_pairs(source text, k integer DEFAULT 5, d integer DEFAULT 6)
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
COMMENT ON FUNCTION simhash_threshold_pairs(text, integer, integer) IS
    'every pair with simhash distance <= k or fingerprint difference <= d, from a source (id, sh, fp)';

-- The read-only check of the C functions' sources, for the PL/pgSQL functions: one plain SELECT
-- that neither writes nor locks rows, or the same errors and SQLSTATEs as theirs.
CREATE FUNCTION simhash_check_source(source text) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_check_source(text) IS
    'analysis support: raises an error unless a source query is one SELECT that only reads';

-- Checks one (fp_diff, sh_diff) of a pair source.
CREATE FUNCTION simhash_check_differences(fp_diff bigint, sh_diff bigint) RETURNS void
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
COMMENT ON FUNCTION simhash_check_differences(bigint, bigint) IS
    'analysis support: raises an error for a NULL or out-of-range pair of differences';

CREATE FUNCTION simhash_joint_histogram(source text)
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
COMMENT ON FUNCTION simhash_joint_histogram(text) IS
    'pairs per (fingerprint difference, simhash difference) cell, from a pair source (fp_diff, sh_diff)';

CREATE FUNCTION simhash_quadrants(source text, d integer DEFAULT 6, k integer DEFAULT 5,
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
COMMENT ON FUNCTION simhash_quadrants(text, integer, integer, bigint) IS
    'pairs in each quadrant of thresholds (fingerprints <= d, simhash <= k); total_pairs adds unlisted pairs to neither';

CREATE FUNCTION simhash_threshold_sweep(source text, d integer DEFAULT 6, max_k integer DEFAULT 10,
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
COMMENT ON FUNCTION simhash_threshold_sweep(text, integer, integer, bigint) IS
    'per simhash k: pairs flagged, flagged but fingerprints say different (> d), fingerprint duplicates missed; recommended = largest k with at most allowed flagged-but-different';

CREATE FUNCTION simhash_heatmap_svg(histogram text, scale text DEFAULT 'log', d integer DEFAULT 6,
                                    k integer DEFAULT 5,
                                    title text DEFAULT 'Pairs of pages: fingerprint difference vs simhash difference')
    RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_heatmap_svg(text, text, integer, integer, text) IS
    'standalone SVG heat map of a histogram source (fp_diff, sh_diff, pairs): log (default) or linear colour scale, threshold lines d and k';
