-- ===== GiST operator class: exact radius search and nearest neighbours =====================
-- Keys are simhash values themselves: the hash at a leaf, the shared prefix (coded) above it.
CREATE FUNCTION simhash_gist_consistent(internal, simhash, smallint, oid, internal) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_distance(internal, simhash, smallint, oid, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_union(internal, internal) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_penalty(internal, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_picksplit(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_same(simhash, simhash, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_sortsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS simhash_gist_ops DEFAULT FOR TYPE simhash USING gist AS
    OPERATOR 1 <@ (simhash, hamming_ball),
    OPERATOR 15 <-> (simhash, simhash) FOR ORDER BY pg_catalog.integer_ops,
    FUNCTION 1 simhash_gist_consistent(internal, simhash, smallint, oid, internal),
    FUNCTION 2 simhash_gist_union(internal, internal),
    FUNCTION 5 simhash_gist_penalty(internal, internal, internal),
    FUNCTION 6 simhash_gist_picksplit(internal, internal),
    FUNCTION 7 simhash_gist_same(simhash, simhash, internal),
    FUNCTION 8 simhash_gist_distance(internal, simhash, smallint, oid, internal),
    FUNCTION 11 simhash_gist_sortsupport(internal);

COMMENT ON FUNCTION simhash_gist_consistent(internal, simhash, smallint, oid, internal) IS 'GiST support: radius search';
COMMENT ON FUNCTION simhash_gist_distance(internal, simhash, smallint, oid, internal) IS 'GiST support: distance (exact at a leaf, a lower bound above) for nearest-neighbour search';
COMMENT ON FUNCTION simhash_gist_union(internal, internal) IS 'GiST support: the prefix shared by a set of keys';
COMMENT ON FUNCTION simhash_gist_penalty(internal, internal, internal) IS 'GiST support: insertion penalty (shared leading bits lost)';
COMMENT ON FUNCTION simhash_gist_picksplit(internal, internal) IS 'GiST support: page split along the prefix tree';
COMMENT ON FUNCTION simhash_gist_same(simhash, simhash, internal) IS 'GiST support: key equality';
COMMENT ON FUNCTION simhash_gist_sortsupport(internal) IS 'GiST support: sorted index build';
COMMENT ON OPERATOR CLASS simhash_gist_ops USING gist IS 'exact radius search (<@) and nearest neighbours (<->) on simhash';

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
