-- ===== Confirmed crawl-scale jobs ============================================================
-- source: SQL text returning (id bigint|integer|smallint, sh simhash|bigint, sketch resemblance_sketch).
-- A pair within k bits is kept only if resemblance(sketches) >= min_resemblance. The default k is 7:
-- confirmation keeps precision while k rises (README "Confirmed duplicates").
CREATE FUNCTION simhash_pairs_confirmed(source text, k integer DEFAULT 7,
                                        min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer, resemblance double precision)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION simhash_clusters_confirmed(source text, k integer DEFAULT 7,
                                           min_resemblance double precision DEFAULT 0.87,
                                           singletons boolean DEFAULT false)
    RETURNS TABLE (id bigint, cluster_id bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION simhash_pairs_confirmed(text, integer, double precision) IS
    'every pair of source rows (id, sh, sketch) within Hamming distance k whose estimated resemblance is at least min_resemblance, with the estimate';
COMMENT ON FUNCTION simhash_clusters_confirmed(text, integer, double precision, boolean) IS
    'connected components of the confirmed within-k graph: cluster_id = smallest id in the cluster';
