-- ===== Hamming distance ======================================================================
-- hamming() returns the domain hamming_distance (an integer 0..64). Comparisons between it and
-- integers are operators of this extension, so that the planner asks this extension about
-- "hamming(sh, q) <= 5" and the index issue can make that exact form use an index. Everything else
-- (arithmetic, aggregates, the wire protocol) sees a plain integer.
CREATE DOMAIN hamming_distance AS integer CHECK (VALUE BETWEEN 0 AND 64);
COMMENT ON DOMAIN hamming_distance IS 'a Hamming distance between two simhashes, 0..64';

CREATE FUNCTION hamming(simhash, simhash) RETURNS hamming_distance
    AS 'MODULE_PATHNAME', 'simhash_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming(bigint, bigint) RETURNS hamming_distance
    AS 'MODULE_PATHNAME', 'bigint_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hamming(simhash, simhash) IS 'number of differing bits, 0..64';
COMMENT ON FUNCTION hamming(bigint, bigint) IS 'number of differing bits of two simhashes stored as bigint, 0..64';

CREATE OPERATOR <-> (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = hamming, COMMUTATOR = <->);
COMMENT ON OPERATOR <->(simhash, simhash) IS 'Hamming distance, 0..64';

-- (hamming_distance, integer)
CREATE FUNCTION hamming_distance_eq(hamming_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_ne(hamming_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_lt(hamming_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_le(hamming_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_gt(hamming_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_ge(hamming_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR = (
    LEFTARG = hamming_distance, RIGHTARG = integer, FUNCTION = hamming_distance_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
    LEFTARG = hamming_distance, RIGHTARG = integer, FUNCTION = hamming_distance_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = hamming_distance, RIGHTARG = integer, FUNCTION = hamming_distance_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = hamming_distance, RIGHTARG = integer, FUNCTION = hamming_distance_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = hamming_distance, RIGHTARG = integer, FUNCTION = hamming_distance_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = hamming_distance, RIGHTARG = integer, FUNCTION = hamming_distance_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON FUNCTION hamming_distance_eq(hamming_distance, integer) IS 'distance comparison: equal';
COMMENT ON OPERATOR =(hamming_distance, integer) IS 'distance comparison: equal';
COMMENT ON FUNCTION hamming_distance_ne(hamming_distance, integer) IS 'distance comparison: not equal';
COMMENT ON OPERATOR <>(hamming_distance, integer) IS 'distance comparison: not equal';
COMMENT ON FUNCTION hamming_distance_lt(hamming_distance, integer) IS 'distance comparison: less than';
COMMENT ON OPERATOR <(hamming_distance, integer) IS 'distance comparison: less than';
COMMENT ON FUNCTION hamming_distance_le(hamming_distance, integer) IS 'distance comparison: less than or equal';
COMMENT ON OPERATOR <=(hamming_distance, integer) IS 'distance comparison: less than or equal';
COMMENT ON FUNCTION hamming_distance_gt(hamming_distance, integer) IS 'distance comparison: greater than';
COMMENT ON OPERATOR >(hamming_distance, integer) IS 'distance comparison: greater than';
COMMENT ON FUNCTION hamming_distance_ge(hamming_distance, integer) IS 'distance comparison: greater than or equal';
COMMENT ON OPERATOR >=(hamming_distance, integer) IS 'distance comparison: greater than or equal';

-- (integer, hamming_distance)
CREATE FUNCTION hamming_distance_eq(integer, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_ne(integer, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_lt(integer, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_le(integer, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_gt(integer, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_ge(integer, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR = (
    LEFTARG = integer, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
    LEFTARG = integer, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = integer, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = integer, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = integer, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = integer, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON FUNCTION hamming_distance_eq(integer, hamming_distance) IS 'distance comparison: equal';
COMMENT ON OPERATOR =(integer, hamming_distance) IS 'distance comparison: equal';
COMMENT ON FUNCTION hamming_distance_ne(integer, hamming_distance) IS 'distance comparison: not equal';
COMMENT ON OPERATOR <>(integer, hamming_distance) IS 'distance comparison: not equal';
COMMENT ON FUNCTION hamming_distance_lt(integer, hamming_distance) IS 'distance comparison: less than';
COMMENT ON OPERATOR <(integer, hamming_distance) IS 'distance comparison: less than';
COMMENT ON FUNCTION hamming_distance_le(integer, hamming_distance) IS 'distance comparison: less than or equal';
COMMENT ON OPERATOR <=(integer, hamming_distance) IS 'distance comparison: less than or equal';
COMMENT ON FUNCTION hamming_distance_gt(integer, hamming_distance) IS 'distance comparison: greater than';
COMMENT ON OPERATOR >(integer, hamming_distance) IS 'distance comparison: greater than';
COMMENT ON FUNCTION hamming_distance_ge(integer, hamming_distance) IS 'distance comparison: greater than or equal';
COMMENT ON OPERATOR >=(integer, hamming_distance) IS 'distance comparison: greater than or equal';

-- (hamming_distance, hamming_distance)
CREATE FUNCTION hamming_distance_eq(hamming_distance, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_ne(hamming_distance, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_lt(hamming_distance, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_le(hamming_distance, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_gt(hamming_distance, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION hamming_distance_ge(hamming_distance, hamming_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR = (
    LEFTARG = hamming_distance, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
    LEFTARG = hamming_distance, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = hamming_distance, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = hamming_distance, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = hamming_distance, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = hamming_distance, RIGHTARG = hamming_distance, FUNCTION = hamming_distance_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON FUNCTION hamming_distance_eq(hamming_distance, hamming_distance) IS 'distance comparison: equal';
COMMENT ON OPERATOR =(hamming_distance, hamming_distance) IS 'distance comparison: equal';
COMMENT ON FUNCTION hamming_distance_ne(hamming_distance, hamming_distance) IS 'distance comparison: not equal';
COMMENT ON OPERATOR <>(hamming_distance, hamming_distance) IS 'distance comparison: not equal';
COMMENT ON FUNCTION hamming_distance_lt(hamming_distance, hamming_distance) IS 'distance comparison: less than';
COMMENT ON OPERATOR <(hamming_distance, hamming_distance) IS 'distance comparison: less than';
COMMENT ON FUNCTION hamming_distance_le(hamming_distance, hamming_distance) IS 'distance comparison: less than or equal';
COMMENT ON OPERATOR <=(hamming_distance, hamming_distance) IS 'distance comparison: less than or equal';
COMMENT ON FUNCTION hamming_distance_gt(hamming_distance, hamming_distance) IS 'distance comparison: greater than';
COMMENT ON OPERATOR >(hamming_distance, hamming_distance) IS 'distance comparison: greater than';
COMMENT ON FUNCTION hamming_distance_ge(hamming_distance, hamming_distance) IS 'distance comparison: greater than or equal';
COMMENT ON OPERATOR >=(hamming_distance, hamming_distance) IS 'distance comparison: greater than or equal';
