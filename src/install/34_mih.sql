-- ===== GIN operator class simhash_mih_ops: exact radius search by multi-index hashing =======
-- CREATE INDEX ON pages USING gin (sh simhash_mih_ops);            -- 3 blocks of 21-22 bits
-- CREATE INDEX ON pages USING gin (sh simhash_mih_ops (blocks = 4));
CREATE FUNCTION simhash_mih_extract_value(simhash, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_mih_extract_query(simhash, internal, smallint, internal, internal, internal, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_mih_consistent(internal, smallint, simhash, integer, internal, internal, internal, internal)
    RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_mih_triconsistent(internal, smallint, simhash, integer, internal, internal, internal)
    RETURNS "char"
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_mih_options(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OPERATOR CLASS simhash_mih_ops FOR TYPE simhash USING gin AS
    OPERATOR 1 <@ (simhash, hamming_ball),
    FUNCTION 1 btint4cmp(integer, integer),
    FUNCTION 2 simhash_mih_extract_value(simhash, internal, internal),
    FUNCTION 3 simhash_mih_extract_query(simhash, internal, smallint, internal, internal, internal, internal),
    FUNCTION 4 simhash_mih_consistent(internal, smallint, simhash, integer, internal, internal, internal, internal),
    FUNCTION 6 simhash_mih_triconsistent(internal, smallint, simhash, integer, internal, internal, internal),
    FUNCTION 7 simhash_mih_options(internal),
    STORAGE integer;

COMMENT ON FUNCTION simhash_mih_extract_value(simhash, internal, internal) IS 'GIN support: one key per block of a simhash';
COMMENT ON FUNCTION simhash_mih_extract_query(simhash, internal, smallint, internal, internal, internal, internal) IS 'GIN support: the block keys a radius query must look up';
COMMENT ON FUNCTION simhash_mih_consistent(internal, smallint, simhash, integer, internal, internal, internal, internal) IS 'GIN support: any block key makes a candidate';
COMMENT ON FUNCTION simhash_mih_triconsistent(internal, smallint, simhash, integer, internal, internal, internal) IS 'GIN support: any block key makes a candidate (ternary)';
COMMENT ON FUNCTION simhash_mih_options(internal) IS 'GIN support: the blocks option (3..8)';
COMMENT ON OPERATOR CLASS simhash_mih_ops USING gin IS 'exact radius search (<@) by multi-index hashing on blocks of the simhash';
