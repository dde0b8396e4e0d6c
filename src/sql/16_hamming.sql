-- ===== Hamming distance ======================================================================
-- hamming() returns the domain hamming_distance (an integer 0..64) and x <-> y a plain integer:
-- clients and BI tools see a standard integer for both (the wire protocol sends a domain as its
-- base type). <-> has to be a plain integer, not the domain: a nearest-neighbour index serves
-- ORDER BY x <-> q only when the ordering operator's result type is the type of a btree family
-- (integer_ops here); the planner relabels a domain to its base type for sorting, and no index
-- ordering operator matches a relabelled expression.
-- Comparisons of hamming_distance with an integer are operators of this extension, so that the
-- planner asks this extension about "hamming(sh, q) <= 5" and can hand it to an index. "x <-> y <= 5"
-- is PostgreSQL's own integer comparison, evaluated row by row (README, Querying).
-- simhash_distance, the result type of <-> in 1.0, is kept (values stored under 1.0 stay readable
-- and comparable), but nothing returns it any more.
CREATE DOMAIN hamming_distance AS integer CHECK (VALUE BETWEEN 0 AND 64);
COMMENT ON DOMAIN hamming_distance IS 'a Hamming distance between two simhashes, 0..64';

CREATE TYPE simhash_distance;
CREATE FUNCTION simhash_distance_in(cstring) RETURNS simhash_distance
    AS 'int4in' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_distance_out(simhash_distance) RETURNS cstring
    AS 'int4out' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_distance_recv(internal) RETURNS simhash_distance
    AS 'int4recv' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_distance_send(simhash_distance) RETURNS bytea
    AS 'int4send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE simhash_distance (
    INPUT = simhash_distance_in, OUTPUT = simhash_distance_out,
    RECEIVE = simhash_distance_recv, SEND = simhash_distance_send,
    LIKE = integer, CATEGORY = 'N');
CREATE CAST (simhash_distance AS integer) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (integer AS simhash_distance) WITHOUT FUNCTION;
COMMENT ON TYPE simhash_distance IS 'a Hamming distance 0..64 as <-> returned it in version 1.0 (now integer), implicitly an integer';
COMMENT ON FUNCTION simhash_distance_in(cstring) IS 'simhash_distance input (as integer)';
COMMENT ON FUNCTION simhash_distance_out(simhash_distance) IS 'simhash_distance output (as integer)';
COMMENT ON FUNCTION simhash_distance_recv(internal) IS 'simhash_distance binary input (as integer)';
COMMENT ON FUNCTION simhash_distance_send(simhash_distance) IS 'simhash_distance binary output (as integer)';

CREATE FUNCTION hamming(simhash, simhash) RETURNS hamming_distance
    AS 'MODULE_PATHNAME', 'simhash_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming(bigint, bigint) RETURNS hamming_distance
    AS 'MODULE_PATHNAME', 'bigint_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_distance(simhash, simhash) RETURNS integer
    AS 'MODULE_PATHNAME', 'simhash_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hamming(simhash, simhash) IS 'number of differing bits, 0..64';
COMMENT ON FUNCTION hamming(bigint, bigint) IS 'number of differing bits of two simhashes stored as bigint, 0..64';
COMMENT ON FUNCTION simhash_distance(simhash, simhash) IS 'number of differing bits, 0..64, as integer (the function of <->)';

CREATE OPERATOR <-> (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_distance, COMMUTATOR = <->);
COMMENT ON OPERATOR <->(simhash, simhash) IS 'Hamming distance, 0..64, as integer (ORDER BY sh <-> q uses an index)';

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
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
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

-- (simhash_distance, integer)
CREATE FUNCTION simhash_distance_eq(simhash_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_ne(simhash_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_lt(simhash_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_le(simhash_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_gt(simhash_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_ge(simhash_distance, integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR = (
    LEFTARG = simhash_distance, RIGHTARG = integer, FUNCTION = simhash_distance_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
    LEFTARG = simhash_distance, RIGHTARG = integer, FUNCTION = simhash_distance_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = simhash_distance, RIGHTARG = integer, FUNCTION = simhash_distance_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = simhash_distance, RIGHTARG = integer, FUNCTION = simhash_distance_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = simhash_distance, RIGHTARG = integer, FUNCTION = simhash_distance_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = simhash_distance, RIGHTARG = integer, FUNCTION = simhash_distance_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON FUNCTION simhash_distance_eq(simhash_distance, integer) IS 'distance comparison: equal';
COMMENT ON OPERATOR =(simhash_distance, integer) IS 'distance comparison: equal';
COMMENT ON FUNCTION simhash_distance_ne(simhash_distance, integer) IS 'distance comparison: not equal';
COMMENT ON OPERATOR <>(simhash_distance, integer) IS 'distance comparison: not equal';
COMMENT ON FUNCTION simhash_distance_lt(simhash_distance, integer) IS 'distance comparison: less than';
COMMENT ON OPERATOR <(simhash_distance, integer) IS 'distance comparison: less than';
COMMENT ON FUNCTION simhash_distance_le(simhash_distance, integer) IS 'distance comparison: less than or equal';
COMMENT ON OPERATOR <=(simhash_distance, integer) IS 'distance comparison: less than or equal';
COMMENT ON FUNCTION simhash_distance_gt(simhash_distance, integer) IS 'distance comparison: greater than';
COMMENT ON OPERATOR >(simhash_distance, integer) IS 'distance comparison: greater than';
COMMENT ON FUNCTION simhash_distance_ge(simhash_distance, integer) IS 'distance comparison: greater than or equal';
COMMENT ON OPERATOR >=(simhash_distance, integer) IS 'distance comparison: greater than or equal';

-- (integer, simhash_distance)
CREATE FUNCTION simhash_distance_eq(integer, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_ne(integer, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_lt(integer, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_le(integer, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_gt(integer, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_ge(integer, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR = (
    LEFTARG = integer, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel);
CREATE OPERATOR <> (
    LEFTARG = integer, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = integer, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = integer, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = integer, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = integer, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON FUNCTION simhash_distance_eq(integer, simhash_distance) IS 'distance comparison: equal';
COMMENT ON OPERATOR =(integer, simhash_distance) IS 'distance comparison: equal';
COMMENT ON FUNCTION simhash_distance_ne(integer, simhash_distance) IS 'distance comparison: not equal';
COMMENT ON OPERATOR <>(integer, simhash_distance) IS 'distance comparison: not equal';
COMMENT ON FUNCTION simhash_distance_lt(integer, simhash_distance) IS 'distance comparison: less than';
COMMENT ON OPERATOR <(integer, simhash_distance) IS 'distance comparison: less than';
COMMENT ON FUNCTION simhash_distance_le(integer, simhash_distance) IS 'distance comparison: less than or equal';
COMMENT ON OPERATOR <=(integer, simhash_distance) IS 'distance comparison: less than or equal';
COMMENT ON FUNCTION simhash_distance_gt(integer, simhash_distance) IS 'distance comparison: greater than';
COMMENT ON OPERATOR >(integer, simhash_distance) IS 'distance comparison: greater than';
COMMENT ON FUNCTION simhash_distance_ge(integer, simhash_distance) IS 'distance comparison: greater than or equal';
COMMENT ON OPERATOR >=(integer, simhash_distance) IS 'distance comparison: greater than or equal';

-- (simhash_distance, simhash_distance)
CREATE FUNCTION simhash_distance_eq(simhash_distance, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_ne(simhash_distance, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_lt(simhash_distance, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_le(simhash_distance, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_gt(simhash_distance, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_ge(simhash_distance, simhash_distance) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hamming_distance_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR = (
    LEFTARG = simhash_distance, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (
    LEFTARG = simhash_distance, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = simhash_distance, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = simhash_distance, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = simhash_distance, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = simhash_distance, RIGHTARG = simhash_distance, FUNCTION = simhash_distance_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON FUNCTION simhash_distance_eq(simhash_distance, simhash_distance) IS 'distance comparison: equal';
COMMENT ON OPERATOR =(simhash_distance, simhash_distance) IS 'distance comparison: equal';
COMMENT ON FUNCTION simhash_distance_ne(simhash_distance, simhash_distance) IS 'distance comparison: not equal';
COMMENT ON OPERATOR <>(simhash_distance, simhash_distance) IS 'distance comparison: not equal';
COMMENT ON FUNCTION simhash_distance_lt(simhash_distance, simhash_distance) IS 'distance comparison: less than';
COMMENT ON OPERATOR <(simhash_distance, simhash_distance) IS 'distance comparison: less than';
COMMENT ON FUNCTION simhash_distance_le(simhash_distance, simhash_distance) IS 'distance comparison: less than or equal';
COMMENT ON OPERATOR <=(simhash_distance, simhash_distance) IS 'distance comparison: less than or equal';
COMMENT ON FUNCTION simhash_distance_gt(simhash_distance, simhash_distance) IS 'distance comparison: greater than';
COMMENT ON OPERATOR >(simhash_distance, simhash_distance) IS 'distance comparison: greater than';
COMMENT ON FUNCTION simhash_distance_ge(simhash_distance, simhash_distance) IS 'distance comparison: greater than or equal';
COMMENT ON OPERATOR >=(simhash_distance, simhash_distance) IS 'distance comparison: greater than or equal';

-- simhash_distance (values stored under 1.0) sorts and hashes as the integer it is.
CREATE FUNCTION simhash_distance_cmp(simhash_distance, simhash_distance) RETURNS integer
    AS 'btint4cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_distance_sortsupport(internal) RETURNS void
    AS 'btint4sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_distance_hash(simhash_distance) RETURNS integer
    AS 'hashint4' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR CLASS simhash_distance_ops DEFAULT FOR TYPE simhash_distance USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 simhash_distance_cmp(simhash_distance, simhash_distance),
    FUNCTION 2 simhash_distance_sortsupport(internal);
CREATE OPERATOR CLASS simhash_distance_hash_ops DEFAULT FOR TYPE simhash_distance USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 simhash_distance_hash(simhash_distance);
COMMENT ON FUNCTION simhash_distance_cmp(simhash_distance, simhash_distance) IS 'btree comparison of distances';
COMMENT ON FUNCTION simhash_distance_sortsupport(internal) IS 'btree sort support for distances';
COMMENT ON FUNCTION simhash_distance_hash(simhash_distance) IS 'hash support for distances';
COMMENT ON OPERATOR CLASS simhash_distance_ops USING btree IS 'order of simhash_distance values';
COMMENT ON OPERATOR CLASS simhash_distance_hash_ops USING hash IS 'equality of distances';
