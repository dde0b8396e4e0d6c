-- ===== GiST operator class: exact radius search and nearest neighbours =====================
CREATE TYPE simhash_gist_key;
CREATE FUNCTION simhash_gist_key_in(cstring) RETURNS simhash_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_key_out(simhash_gist_key) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE simhash_gist_key (
    INPUT = simhash_gist_key_in, OUTPUT = simhash_gist_key_out,
    INTERNALLENGTH = 16, ALIGNMENT = double, STORAGE = plain);

CREATE FUNCTION simhash_gist_consistent(internal, simhash, smallint, oid, internal) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_distance(internal, simhash, smallint, oid, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_union(internal, internal) RETURNS simhash_gist_key
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_compress(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_fetch(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_penalty(internal, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_picksplit(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_same(simhash_gist_key, simhash_gist_key, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_gist_sortsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS simhash_gist_ops DEFAULT FOR TYPE simhash USING gist AS
    OPERATOR 1 <@ (simhash, hamming_ball),
    OPERATOR 15 <-> (simhash, simhash) FOR ORDER BY simhash_distance_ops,
    FUNCTION 1 simhash_gist_consistent(internal, simhash, smallint, oid, internal),
    FUNCTION 2 simhash_gist_union(internal, internal),
    FUNCTION 3 simhash_gist_compress(internal),
    FUNCTION 5 simhash_gist_penalty(internal, internal, internal),
    FUNCTION 6 simhash_gist_picksplit(internal, internal),
    FUNCTION 7 simhash_gist_same(simhash_gist_key, simhash_gist_key, internal),
    FUNCTION 8 simhash_gist_distance(internal, simhash, smallint, oid, internal),
    FUNCTION 9 simhash_gist_fetch(internal),
    FUNCTION 11 simhash_gist_sortsupport(internal),
    STORAGE simhash_gist_key;

COMMENT ON TYPE simhash_gist_key IS 'GiST key of simhash_gist_ops: AND and OR of the hashes below (internal)';
COMMENT ON FUNCTION simhash_gist_key_in(cstring) IS 'GiST key input (not supported)';
COMMENT ON FUNCTION simhash_gist_key_out(simhash_gist_key) IS 'GiST key output (not supported)';
COMMENT ON FUNCTION simhash_gist_consistent(internal, simhash, smallint, oid, internal) IS 'GiST support: radius search';
COMMENT ON FUNCTION simhash_gist_distance(internal, simhash, smallint, oid, internal) IS 'GiST support: distance lower bound for nearest-neighbour search';
COMMENT ON FUNCTION simhash_gist_union(internal, internal) IS 'GiST support: union of keys';
COMMENT ON FUNCTION simhash_gist_compress(internal) IS 'GiST support: leaf key from a simhash';
COMMENT ON FUNCTION simhash_gist_fetch(internal) IS 'GiST support: simhash from a leaf key (index-only scans)';
COMMENT ON FUNCTION simhash_gist_penalty(internal, internal, internal) IS 'GiST support: insertion penalty';
COMMENT ON FUNCTION simhash_gist_picksplit(internal, internal) IS 'GiST support: page split';
COMMENT ON FUNCTION simhash_gist_same(simhash_gist_key, simhash_gist_key, internal) IS 'GiST support: key equality';
COMMENT ON FUNCTION simhash_gist_sortsupport(internal) IS 'GiST support: sorted index build';
COMMENT ON OPERATOR CLASS simhash_gist_ops USING gist IS 'exact radius search (<@) and nearest neighbours (<->) on simhash';
