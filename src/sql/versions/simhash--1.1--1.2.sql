-- simhash 1.1 -> 1.2 (ALTER EXTENSION simhash UPDATE TO '1.2')
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.2'" to load this file. \quit

-- Each change of 1.2 has its own section below, headed "-- ===== <topic> =====", and brings an
-- installed 1.1 to exactly what a fresh 1.2 install creates (test/scripts/upgrade.sh checks it).

-- ===== distributed all-pairs =====
-- New functions: permuted-table keys, the owning table of a pair, and the pairs of one key group,
-- so a cluster runs the all-pairs job on its nodes. Nothing to rebuild.
CREATE FUNCTION simhash_table_keys(sh simhash, k integer, blocks integer) RETURNS bigint[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_key_table(key bigint) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_pair_table(a simhash, b simhash, k integer, blocks integer) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_group_pairs(key bigint, ids bigint[], hashes simhash[], k integer, blocks integer)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer)
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION simhash_table_keys(simhash, integer, integer) IS
    'the row''s key in each permuted table (every choice of blocks - k of the blocks): rows within k share a key';
COMMENT ON FUNCTION simhash_key_table(bigint) IS
    'the permuted table a key of simhash_table_keys belongs to (0-based)';
COMMENT ON FUNCTION simhash_pair_table(simhash, simhash, integer, integer) IS
    'the permuted table that owns a pair: the first whose blocks both agree on; NULL when more than k apart';
COMMENT ON FUNCTION simhash_group_pairs(bigint, bigint[], simhash[], integer, integer) IS
    'the pairs within k among the rows of one key that the key''s table owns: each pair once over all keys';

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
