-- ===== Bit operators =========================================================================
CREATE FUNCTION simhash_xor(simhash, simhash) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_and(simhash, simhash) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_or(simhash, simhash) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_not(simhash) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION popcount(simhash) RETURNS integer
    AS 'MODULE_PATHNAME', 'simhash_popcount' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR # (LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_xor, COMMUTATOR = #);
CREATE OPERATOR & (LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_and, COMMUTATOR = &);
CREATE OPERATOR | (LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_or, COMMUTATOR = |);
CREATE OPERATOR ~ (RIGHTARG = simhash, FUNCTION = simhash_not);

COMMENT ON FUNCTION simhash_xor(simhash, simhash) IS 'bitwise exclusive or';
COMMENT ON FUNCTION simhash_and(simhash, simhash) IS 'bitwise and';
COMMENT ON FUNCTION simhash_or(simhash, simhash) IS 'bitwise or';
COMMENT ON FUNCTION simhash_not(simhash) IS 'bitwise complement';
COMMENT ON FUNCTION popcount(simhash) IS 'number of bits set (0..64)';
COMMENT ON OPERATOR #(simhash, simhash) IS 'bitwise exclusive or';
COMMENT ON OPERATOR &(simhash, simhash) IS 'bitwise and';
COMMENT ON OPERATOR |(simhash, simhash) IS 'bitwise or';
COMMENT ON OPERATOR ~(NONE, simhash) IS 'bitwise complement';
