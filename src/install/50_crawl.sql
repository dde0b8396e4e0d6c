-- ===== Crawl-scale duplicate detection ====================================================
-- source: SQL text returning two columns, (id bigint|integer|smallint, sh simhash|bigint).
CREATE FUNCTION simhash_pairs(source text, k integer DEFAULT 5)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION simhash_clusters(source text, k integer DEFAULT 5, singletons boolean DEFAULT false)
    RETURNS TABLE (id bigint, cluster_id bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
-- The body is bound when the function is created, every name qualified; no pinned search_path,
-- because the source runs under the caller's (see 60_analysis.sql).
CREATE FUNCTION simhash_cluster_summary(source text, k integer DEFAULT 5)
    RETURNS TABLE (cluster_id bigint, size bigint, representative bigint)
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    BEGIN ATOMIC
        SELECT c.cluster_id, pg_catalog.count(*), pg_catalog.min(c.id)
        FROM @extschema@.simhash_clusters(source, k) c
        GROUP BY c.cluster_id
        ORDER BY pg_catalog.count(*) DESC, c.cluster_id;
    END;
CREATE FUNCTION simhash_band_keys(sh simhash, k integer) RETURNS bigint[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Permuted tables: the all-pairs job spread over a cluster's nodes (README "Scaling out").
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

COMMENT ON FUNCTION simhash_pairs(text, integer) IS
    'every pair of source rows within Hamming distance k, once each, id_a < id_b';
COMMENT ON FUNCTION simhash_clusters(text, integer, boolean) IS
    'connected components of the within-k graph: cluster_id = smallest id in the cluster';
COMMENT ON FUNCTION simhash_cluster_summary(text, integer) IS
    'one row per duplicate cluster: its size and representative (smallest id), largest first';
COMMENT ON FUNCTION simhash_band_keys(simhash, integer) IS
    'keys such that two hashes within k share at least one: the equi-join form of the radius';
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
