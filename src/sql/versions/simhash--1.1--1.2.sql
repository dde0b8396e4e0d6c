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
