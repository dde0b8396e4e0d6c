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
    AS 'MODULE_PATHNAME', 'simhash_distance_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_distance_out(simhash_distance) RETURNS cstring
    AS 'int4out' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_distance_recv(internal) RETURNS simhash_distance
    AS 'MODULE_PATHNAME', 'simhash_distance_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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

-- The six comparisons, for each pair of distance types: (hamming_distance, integer),
-- (integer, hamming_distance), (hamming_distance, hamming_distance), and the same three for
-- simhash_distance. One C function per comparison serves every pair (all are int4 underneath);
-- the SQL names are <prefix>_<eq|ne|lt|le|gt|ge>(left, right). Equality of two values of one
-- type also HASHES and MERGES.
DO $comparisons$
DECLARE
    pair record;
    op record;
BEGIN
    FOR pair IN SELECT * FROM (VALUES
            ('hamming_distance', 'hamming_distance', 'integer'),
            ('hamming_distance', 'integer', 'hamming_distance'),
            ('hamming_distance', 'hamming_distance', 'hamming_distance'),
            ('simhash_distance', 'simhash_distance', 'integer'),
            ('simhash_distance', 'integer', 'simhash_distance'),
            ('simhash_distance', 'simhash_distance', 'simhash_distance')) p(prefix, lt, rt)
    LOOP
        FOR op IN SELECT * FROM (VALUES
                ('eq', '=', '=', '<>', 'eqsel', 'eqjoinsel', 'equal'),
                ('ne', '<>', '<>', '=', 'neqsel', 'neqjoinsel', 'not equal'),
                ('lt', '<', '>', '>=', 'scalarltsel', 'scalarltjoinsel', 'less than'),
                ('le', '<=', '>=', '>', 'scalarlesel', 'scalarlejoinsel', 'less than or equal'),
                ('gt', '>', '<', '<=', 'scalargtsel', 'scalargtjoinsel', 'greater than'),
                ('ge', '>=', '<=', '<', 'scalargesel', 'scalargejoinsel', 'greater than or equal'))
                o(suffix, name, commutator, negator, restrict, joinsel, meaning)
        LOOP
            EXECUTE pg_catalog.format(
                'CREATE FUNCTION %s_%s(%s, %s) RETURNS boolean AS %L, %L '
                'LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF',
                pair.prefix, op.suffix, pair.lt, pair.rt, 'MODULE_PATHNAME', 'hamming_distance_' || op.suffix);
            EXECUTE pg_catalog.format(
                'CREATE OPERATOR %s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %s_%s, '
                'COMMUTATOR = %s, NEGATOR = %s, RESTRICT = %s, JOIN = %s%s)',
                op.name, pair.lt, pair.rt, pair.prefix, op.suffix, op.commutator, op.negator,
                op.restrict, op.joinsel,
                CASE WHEN op.suffix = 'eq' AND pair.lt = pair.rt THEN ', HASHES, MERGES' ELSE '' END);
            EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s_%s(%s, %s) IS %L',
                pair.prefix, op.suffix, pair.lt, pair.rt, 'distance comparison: ' || op.meaning);
            EXECUTE pg_catalog.format('COMMENT ON OPERATOR %s(%s, %s) IS %L',
                op.name, pair.lt, pair.rt, 'distance comparison: ' || op.meaning);
        END LOOP;
    END LOOP;
END
$comparisons$;

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
