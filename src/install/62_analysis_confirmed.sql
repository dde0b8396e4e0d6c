-- ===== Choosing the threshold with confirmation: simhash alone, simhash confirmed, fingerprints =====
-- The same sources and the same search_path rule as 60_analysis.sql: every name the bodies use is
-- schema-qualified, because a source runs under the caller's search_path.

-- Every pair under either threshold (simhash_threshold_pairs) with the resemblance estimate of its
-- sketches; source (id, sh, fp, sk). Rows without a sketch are left out.
CREATE FUNCTION simhash_threshold_pairs_confirmed(source text, k integer DEFAULT 5, d integer DEFAULT 6)
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
