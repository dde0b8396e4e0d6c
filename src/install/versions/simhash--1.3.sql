-- ===== The simhash type: a 64-bit fingerprint, 8 bytes, passed by value =====================
\echo Use "CREATE EXTENSION simhash" to load this file. \quit

CREATE TYPE simhash;

CREATE FUNCTION simhash_in(cstring) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_out(simhash) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_recv(internal) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_send(simhash) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE simhash (
    INPUT = simhash_in,
    OUTPUT = simhash_out,
    RECEIVE = simhash_recv,
    SEND = simhash_send,
    INTERNALLENGTH = 8,
    PASSEDBYVALUE,
    ALIGNMENT = double,
    STORAGE = plain
);

COMMENT ON TYPE simhash IS
    '64-bit simhash fingerprint; text form is 16 lowercase hex digits, ordered as an unsigned number';
COMMENT ON FUNCTION simhash_in(cstring) IS
    'parses 1 to 16 hex digits, optional 0x prefix, either case, surrounding white space';
COMMENT ON FUNCTION simhash_out(simhash) IS 'formats a simhash as 16 lowercase hex digits';
COMMENT ON FUNCTION simhash_recv(internal) IS 'binary input: 8 bytes, network byte order';
COMMENT ON FUNCTION simhash_send(simhash) IS 'binary output: 8 bytes, network byte order';

-- ----- Casts: the same 64 bits in another type ------------------------------------------------
CREATE FUNCTION simhash(bigint) RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_from_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_to_bigint(simhash) RETURNS bigint
    AS 'MODULE_PATHNAME', 'simhash_to_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash(bit) RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_from_bit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_to_bit(simhash) RETURNS bit
    AS 'MODULE_PATHNAME', 'simhash_to_bit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash(bytea) RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_to_bytea(simhash) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- bigint <-> simhash are assignment casts: crawl tables keep simhashes in bigint columns, and
-- INSERT/UPDATE between the two should just work. They are not implicit, so that "sh = 42" or
-- hamming() on numbers never silently reinterprets a number as a bit pattern.
CREATE CAST (bigint AS simhash) WITH FUNCTION simhash(bigint) AS ASSIGNMENT;
CREATE CAST (simhash AS bigint) WITH FUNCTION simhash_to_bigint(simhash) AS ASSIGNMENT;
-- bit(64) and bytea are other spellings of the bits, and the conversion from them can fail on
-- length: explicit only.
CREATE CAST (bit AS simhash) WITH FUNCTION simhash(bit);
CREATE CAST (simhash AS bit) WITH FUNCTION simhash_to_bit(simhash);
CREATE CAST (bytea AS simhash) WITH FUNCTION simhash(bytea);
CREATE CAST (simhash AS bytea) WITH FUNCTION simhash_to_bytea(simhash);

COMMENT ON FUNCTION simhash(bigint) IS 'the same 64 bits as a simhash (two''s complement)';
COMMENT ON FUNCTION simhash_to_bigint(simhash) IS 'the same 64 bits as a signed bigint';
COMMENT ON FUNCTION simhash(bit) IS 'a bit(64), most significant bit first; other lengths are an error';
COMMENT ON FUNCTION simhash_to_bit(simhash) IS 'the 64 bits as bit(64), most significant bit first';
COMMENT ON FUNCTION simhash(bytea) IS 'an 8-byte bytea, most significant byte first; other lengths are an error';
COMMENT ON FUNCTION simhash_to_bytea(simhash) IS 'the 8 bytes, most significant first';
-- ===== Ordering (unsigned), btree and hash operator classes =================================
CREATE FUNCTION simhash_eq(simhash, simhash) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_ne(simhash, simhash) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_lt(simhash, simhash) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_le(simhash, simhash) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_gt(simhash, simhash) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_ge(simhash, simhash) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_cmp(simhash, simhash) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_sortsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- The hash of the 64 bits as int8 hashes them, so hash joins and hash partitioning are stable.
CREATE FUNCTION simhash_hash(simhash) RETURNS integer
    AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION simhash_hash_extended(simhash, bigint) RETURNS bigint
    AS 'hashint8extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = simhash_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR CLASS simhash_btree_ops DEFAULT FOR TYPE simhash USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 simhash_cmp(simhash, simhash),
    FUNCTION 2 simhash_sortsupport(internal);

CREATE OPERATOR CLASS simhash_hash_ops DEFAULT FOR TYPE simhash USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 simhash_hash(simhash),
    FUNCTION 2 simhash_hash_extended(simhash, bigint);

COMMENT ON FUNCTION simhash_eq(simhash, simhash) IS 'simhash equality';
COMMENT ON FUNCTION simhash_ne(simhash, simhash) IS 'simhash inequality';
COMMENT ON FUNCTION simhash_lt(simhash, simhash) IS 'simhash less than (unsigned order)';
COMMENT ON FUNCTION simhash_le(simhash, simhash) IS 'simhash less than or equal (unsigned order)';
COMMENT ON FUNCTION simhash_gt(simhash, simhash) IS 'simhash greater than (unsigned order)';
COMMENT ON FUNCTION simhash_ge(simhash, simhash) IS 'simhash greater than or equal (unsigned order)';
COMMENT ON FUNCTION simhash_cmp(simhash, simhash) IS 'btree comparison: -1, 0 or 1 in unsigned order';
COMMENT ON FUNCTION simhash_sortsupport(internal) IS 'btree sort support: unsigned Datum comparison';
COMMENT ON FUNCTION simhash_hash(simhash) IS 'hash support (the int8 hash of the same bits)';
COMMENT ON FUNCTION simhash_hash_extended(simhash, bigint) IS 'seeded hash support (the int8 hash of the same bits)';
COMMENT ON OPERATOR =(simhash, simhash) IS 'equal';
COMMENT ON OPERATOR <>(simhash, simhash) IS 'not equal';
COMMENT ON OPERATOR <(simhash, simhash) IS 'less than (unsigned)';
COMMENT ON OPERATOR <=(simhash, simhash) IS 'less than or equal (unsigned)';
COMMENT ON OPERATOR >(simhash, simhash) IS 'greater than (unsigned)';
COMMENT ON OPERATOR >=(simhash, simhash) IS 'greater than or equal (unsigned)';
COMMENT ON OPERATOR CLASS simhash_btree_ops USING btree IS 'unsigned order of simhash values';
COMMENT ON OPERATOR CLASS simhash_hash_ops USING hash IS 'equality of simhash values';
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
-- ===== Radius queries: hamming_ball and the <@ operator ====================================
-- "sh <@ hamming_ball(q, k)" is the index-searchable spelling of "hamming(sh, q) <= k".
-- hamming_within(sh, q, k) is the same as a function. A negative radius contains nothing; a radius
-- of 64 or more contains everything (the radius is stored clamped to -1..64).
CREATE TYPE hamming_ball;
CREATE FUNCTION hamming_ball_in(cstring) RETURNS hamming_ball
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming_ball_out(hamming_ball) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming_ball_recv(internal) RETURNS hamming_ball
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming_ball_send(hamming_ball) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE hamming_ball (
    INPUT = hamming_ball_in, OUTPUT = hamming_ball_out,
    RECEIVE = hamming_ball_recv, SEND = hamming_ball_send,
    INTERNALLENGTH = 16, ALIGNMENT = double, STORAGE = plain);

CREATE FUNCTION hamming_ball(center simhash, radius integer) RETURNS hamming_ball
    AS 'MODULE_PATHNAME', 'hamming_ball_make' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION center(hamming_ball) RETURNS simhash
    AS 'MODULE_PATHNAME', 'hamming_ball_center' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION radius(hamming_ball) RETURNS integer
    AS 'MODULE_PATHNAME', 'hamming_ball_radius' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_in_ball(simhash, hamming_ball) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ball_contains_simhash(hamming_ball, simhash) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming_within(a simhash, b simhash, radius integer) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <@ (
    LEFTARG = simhash, RIGHTARG = hamming_ball, FUNCTION = simhash_in_ball,
    COMMUTATOR = @>, RESTRICT = contsel, JOIN = contjoinsel);
CREATE OPERATOR @> (
    LEFTARG = hamming_ball, RIGHTARG = simhash, FUNCTION = ball_contains_simhash,
    COMMUTATOR = <@, RESTRICT = contsel, JOIN = contjoinsel);

COMMENT ON TYPE hamming_ball IS 'all simhashes within a Hamming radius of a center; text form (center,radius)';
COMMENT ON FUNCTION hamming_ball_in(cstring) IS 'parses (center, radius)';
COMMENT ON FUNCTION hamming_ball_out(hamming_ball) IS 'formats (center,radius)';
COMMENT ON FUNCTION hamming_ball_recv(internal) IS 'binary input: center int8, radius int4';
COMMENT ON FUNCTION hamming_ball_send(hamming_ball) IS 'binary output: center int8, radius int4';
COMMENT ON FUNCTION hamming_ball(simhash, integer) IS 'the simhashes within radius of center (radius clamped to -1..64)';
COMMENT ON FUNCTION center(hamming_ball) IS 'the center of a hamming_ball';
COMMENT ON FUNCTION radius(hamming_ball) IS 'the radius of a hamming_ball (-1..64)';
COMMENT ON FUNCTION simhash_in_ball(simhash, hamming_ball) IS 'is the simhash within the ball';
COMMENT ON FUNCTION ball_contains_simhash(hamming_ball, simhash) IS 'does the ball contain the simhash';
COMMENT ON FUNCTION hamming_within(simhash, simhash, integer) IS 'hamming(a, b) <= radius';
COMMENT ON OPERATOR <@(simhash, hamming_ball) IS 'is within the Hamming ball (index-searchable radius query)';
COMMENT ON OPERATOR @>(hamming_ball, simhash) IS 'Hamming ball contains';

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
-- ===== Planner support: radius conditions as users write them use an index =================
-- hamming(x, y) <= k (and < k, k >= hamming(x, y), ...) is simplified into
-- hamming_within(x, y, k), whose support function offers the index clause x <@ hamming_ball(y, k)
-- to any index whose operator family has <@, and estimates its selectivity from the column's
-- statistics. <@ itself gets the same estimator.
CREATE FUNCTION hamming_distance_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming_within_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hamming_ball_restrict(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hamming_distance_support(internal) IS
    'planner support: rewrites hamming(x, y) <= k into hamming_within(x, y, k)';
COMMENT ON FUNCTION hamming_within_support(internal) IS
    'planner support: index condition x <@ hamming_ball(y, k) and selectivity for hamming_within';
COMMENT ON FUNCTION hamming_ball_restrict(internal, oid, internal, integer) IS
    'selectivity of a radius condition, from the column statistics';

ALTER FUNCTION hamming_within(simhash, simhash, integer) SUPPORT hamming_within_support;
ALTER OPERATOR <@ (simhash, hamming_ball) SET (RESTRICT = hamming_ball_restrict);
ALTER OPERATOR @> (hamming_ball, simhash) SET (RESTRICT = hamming_ball_restrict);

ALTER FUNCTION hamming_distance_le(hamming_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_lt(hamming_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_ge(hamming_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_gt(hamming_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_le(integer, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_lt(integer, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_ge(integer, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_gt(integer, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_le(hamming_distance, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_lt(hamming_distance, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_ge(hamming_distance, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION hamming_distance_gt(hamming_distance, hamming_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_le(simhash_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_lt(simhash_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_ge(simhash_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_gt(simhash_distance, integer) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_le(integer, simhash_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_lt(integer, simhash_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_ge(integer, simhash_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_gt(integer, simhash_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_le(simhash_distance, simhash_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_lt(simhash_distance, simhash_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_ge(simhash_distance, simhash_distance) SUPPORT hamming_distance_support;
ALTER FUNCTION simhash_distance_gt(simhash_distance, simhash_distance) SUPPORT hamming_distance_support;
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
-- ===== Index access method simhash_mih: exact radius search over block-sorted tables ========
-- CREATE INDEX ON pages USING simhash_mih (sh);                 -- blocks chosen from the row count
-- CREATE INDEX ON pages USING simhash_mih (sh) WITH (blocks = 4);
-- SELECT id FROM pages ORDER BY sh <-> $1 LIMIT 10;            -- exact nearest neighbours
CREATE FUNCTION simhash_mih_handler(internal) RETURNS index_am_handler
    AS 'MODULE_PATHNAME' LANGUAGE C;
CREATE ACCESS METHOD simhash_mih TYPE INDEX HANDLER simhash_mih_handler;

CREATE OPERATOR CLASS simhash_ops DEFAULT FOR TYPE simhash USING simhash_mih AS
    OPERATOR 1 <@ (simhash, hamming_ball);
-- ORDER BY <-> is a loose member of the operator family, as GiST makes its ordering operators, not
-- a fixed part of the operator class that indexes depend on: a later version can replace it with
-- ALTER OPERATOR FAMILY while the indexes stay (1.0 fixed it in the class; 1.1's upgrade undoes that).
ALTER OPERATOR FAMILY simhash_ops USING simhash_mih ADD
    OPERATOR 2 <-> (simhash, simhash) FOR ORDER BY pg_catalog.integer_ops;

COMMENT ON ACCESS METHOD simhash_mih IS 'exact radius search and nearest neighbours on simhash by multi-index hashing over block-sorted tables';
COMMENT ON OPERATOR CLASS simhash_ops USING simhash_mih IS 'exact radius search (<@) and nearest neighbours (ORDER BY <->) on simhash';
COMMENT ON FUNCTION simhash_mih_handler(internal) IS 'index access method handler of simhash_mih (called by the server only)';

CREATE FUNCTION simhash_mih_check(index regclass, heapallindexed boolean DEFAULT false,
    OUT blocks integer, OUT sorted_rows bigint, OUT live_sorted_rows bigint, OUT pending_rows bigint,
    OUT pages bigint, OUT free_pages bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL UNSAFE;
-- PARALLEL UNSAFE: on a hot standby each pass runs in a subtransaction, which no statement in
-- parallel mode may start (the check beside a count(*) of a big table would otherwise fail there).
COMMENT ON FUNCTION simhash_mih_check(regclass, boolean) IS 'verifies a simhash_mih index (order, directory, cross-table consistency) and reports its shape; with heapallindexed, also that every row of its table with a hash is in it; index_corrupted error on a violation';
-- Reads every page of an index, like amcheck's functions: not for every role. A role it is granted
-- to must also be able to read the index's table (checked before any lock is taken).
REVOKE EXECUTE ON FUNCTION simhash_mih_check(regclass, boolean) FROM PUBLIC;

-- Runs (1.3): inserts go to a pending list of at most the pending_limit option's kB, which the
-- insert that fills it writes as a sorted run; runs merge by size tiers (see the README).
CREATE FUNCTION simhash_mih_merge(index regclass) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_mih_merge(regclass) IS 'writes the pending rows of a simhash_mih index as a run and merges every run into one, as gin_clean_pending_list; returns the rows written; the index''s owner only';
CREATE FUNCTION simhash_mih_runs(index regclass,
    OUT run integer, OUT tier integer, OUT rows bigint, OUT table0_pages bigint,
    OUT merging boolean)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE ROWS 8;
COMMENT ON FUNCTION simhash_mih_runs(regclass) IS 'the sorted runs of a simhash_mih index: size tier, rows (dead ones included until a merge), pages of table 0, whether the background worker is merging it into the base run';
CREATE FUNCTION simhash_mih_state(index regclass,
    OUT blocks integer, OUT runs integer, OUT sorted_rows bigint, OUT pending_rows bigint,
    OUT sealed_rows bigint, OUT pending_limit_rows bigint, OUT inserted_rows bigint,
    OUT written_rows bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION simhash_mih_state(regclass) IS 'the runs and unsorted rows of a simhash_mih index, and the rows its flushes and merges wrote (written_rows / inserted_rows is the write amplification)';
-- Merges under way: the worker's, VACUUM's and simhash_mih_merge's (inserters' merges are short and
-- not shown), from params of the VACUUM progress command that pg_stat_progress_vacuum leaves unused
-- (src/pg/index_am/lsm/mih_lsm.h). Like pg_stat_progress_vacuum, a role sees other roles' backends,
-- and the worker, only with pg_read_all_stats.
CREATE VIEW simhash_mih_merge_progress AS
    SELECT s.pid, s.datid, d.datname, s.relid, s.param16::pg_catalog.oid AS indexrelid,
           CASE s.param17 WHEN 1 THEN 'reading runs' WHEN 2 THEN 'writing tables'
                          WHEN 3 THEN 'waiting for scans' END AS phase,
           s.param18 AS rows_total, s.param19 AS rows_done
    FROM pg_catalog.pg_stat_get_progress_info('VACUUM') s
    LEFT JOIN pg_catalog.pg_database d ON d.oid OPERATOR(pg_catalog.=) s.datid
    WHERE s.param16 OPERATOR(pg_catalog.<>) 0;
COMMENT ON VIEW simhash_mih_merge_progress IS 'merges of simhash_mih runs under way: phase (reading runs, writing tables, waiting for scans), rows_total and rows_done (in writing tables: rows times tables); pg_stat_progress_vacuum shows the same pid';
GRANT SELECT ON simhash_mih_merge_progress TO PUBLIC;
-- ===== simhash of page content ==============================================================
-- The pipeline (documented in full in README.md, "Computing simhash"): visible text (HTML only)
-- -> Unicode word tokens, case-folded -> shingles -> XXH3-64 feature hashes -> one-bit min-hashes
-- (method 'minhash', the default) or weights -> Charikar (method 'charikar').
CREATE FUNCTION simhash(content text, shingle text DEFAULT 'word', size integer DEFAULT 3,
                        fold_case boolean DEFAULT true, weighting text DEFAULT 'distinct',
                        method text DEFAULT 'minhash')
    RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_html(html text, shingle text DEFAULT 'word', size integer DEFAULT 3,
                             fold_case boolean DEFAULT true, weighting text DEFAULT 'distinct',
                             method text DEFAULT 'minhash')
    RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_html' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION html_text(html text) RETURNS text
    AS 'MODULE_PATHNAME', 'html_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From features the caller already has.
CREATE FUNCTION simhash(features text[]) RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_text_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash(features text[], weights real[]) RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_text_array_weighted' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash(feature_hashes bigint[]) RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_bigint_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION simhash_agg_transfn(internal, text) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION simhash_agg_weighted_transfn(internal, text, real) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION simhash_agg_combinefn(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION simhash_agg_serialfn(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_agg_deserialfn(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash_agg_finalfn(internal) RETURNS simhash
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE simhash_agg(feature text) (
    SFUNC = simhash_agg_transfn, STYPE = internal, FINALFUNC = simhash_agg_finalfn,
    COMBINEFUNC = simhash_agg_combinefn, SERIALFUNC = simhash_agg_serialfn,
    DESERIALFUNC = simhash_agg_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE simhash_agg(feature text, weight real) (
    SFUNC = simhash_agg_weighted_transfn, STYPE = internal, FINALFUNC = simhash_agg_finalfn,
    COMBINEFUNC = simhash_agg_combinefn, SERIALFUNC = simhash_agg_serialfn,
    DESERIALFUNC = simhash_agg_deserialfn, PARALLEL = SAFE);

COMMENT ON FUNCTION simhash(text, text, integer, boolean, text, text) IS
    'simhash of page text: shingle => word|character, size => 1..64, fold_case, weighting => distinct|frequency|log (log: charikar only), method => minhash|charikar';
COMMENT ON FUNCTION simhash_html(text, text, integer, boolean, text, text) IS
    'simhash of an HTML page: the simhash of its visible text (html_text), same options as simhash(text)';
COMMENT ON FUNCTION html_text(text) IS
    'visible text of HTML: tags, comments, script/style/noscript/template/svg removed, entities decoded';
COMMENT ON FUNCTION simhash(text[]) IS 'simhash of features, each hashed with XXH3-64, weight 1 each';
COMMENT ON FUNCTION simhash(text[], real[]) IS 'simhash of weighted features (weights finite, >= 0)';
COMMENT ON FUNCTION simhash(bigint[]) IS 'simhash of 64-bit feature hashes, weight 1 each';
COMMENT ON FUNCTION simhash_agg_transfn(internal, text) IS 'simhash_agg support: add a feature';
COMMENT ON FUNCTION simhash_agg_weighted_transfn(internal, text, real) IS 'simhash_agg support: add a weighted feature';
COMMENT ON FUNCTION simhash_agg_combinefn(internal, internal) IS 'simhash_agg support: merge partial states';
COMMENT ON FUNCTION simhash_agg_serialfn(internal) IS 'simhash_agg support: serialize a partial state';
COMMENT ON FUNCTION simhash_agg_deserialfn(bytea, internal) IS 'simhash_agg support: deserialize a partial state';
COMMENT ON FUNCTION simhash_agg_finalfn(internal) IS 'simhash_agg support: the simhash of the sums';
COMMENT ON AGGREGATE simhash_agg(text) IS 'simhash of the features in a column (one feature per row)';
COMMENT ON AGGREGATE simhash_agg(text, real) IS 'simhash of weighted features in a column (one feature per row)';
-- ===== The legacy fingerprints: 128 min-hashes per page, difference = positions that differ ====
-- The heuristic simhash replaced (duplicate when fingerprint_diff <= 6); kept to compare the two.
CREATE TYPE fingerprints;

CREATE FUNCTION fingerprints_in(cstring) RETURNS fingerprints
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fingerprints_out(fingerprints) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fingerprints_recv(internal) RETURNS fingerprints
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fingerprints_send(fingerprints) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE fingerprints (
    INPUT = fingerprints_in,
    OUTPUT = fingerprints_out,
    RECEIVE = fingerprints_recv,
    SEND = fingerprints_send,
    INTERNALLENGTH = 1024,
    ALIGNMENT = double,
    STORAGE = plain
);

COMMENT ON TYPE fingerprints IS
    'legacy page fingerprints: 128 64-bit min-hashes; text form {e1,...,e128}, each 16 hex digits';
COMMENT ON FUNCTION fingerprints_in(cstring) IS
    'parses {e1,...,e128}: 128 entries of 1 to 16 hex digits (optional 0x, white space around)';
COMMENT ON FUNCTION fingerprints_out(fingerprints) IS 'formats fingerprints as {e1,...,e128}, 16 lowercase hex digits each';
COMMENT ON FUNCTION fingerprints_recv(internal) IS 'binary input: 128 entries of 8 bytes, network byte order';
COMMENT ON FUNCTION fingerprints_send(fingerprints) IS 'binary output: 128 entries of 8 bytes, network byte order';

-- ----- Equality, an (arbitrary, total) order and hashing: GROUP BY, DISTINCT, joins, indexes ----
CREATE FUNCTION fingerprints_eq(fingerprints, fingerprints) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_ne(fingerprints, fingerprints) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_lt(fingerprints, fingerprints) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_le(fingerprints, fingerprints) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_gt(fingerprints, fingerprints) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_ge(fingerprints, fingerprints) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_cmp(fingerprints, fingerprints) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_hash(fingerprints) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION fingerprints_hash_extended(fingerprints, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = fingerprints, RIGHTARG = fingerprints, FUNCTION = fingerprints_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (
    LEFTARG = fingerprints, RIGHTARG = fingerprints, FUNCTION = fingerprints_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = fingerprints, RIGHTARG = fingerprints, FUNCTION = fingerprints_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = fingerprints, RIGHTARG = fingerprints, FUNCTION = fingerprints_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = fingerprints, RIGHTARG = fingerprints, FUNCTION = fingerprints_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = fingerprints, RIGHTARG = fingerprints, FUNCTION = fingerprints_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR CLASS fingerprints_btree_ops DEFAULT FOR TYPE fingerprints USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 fingerprints_cmp(fingerprints, fingerprints);
CREATE OPERATOR CLASS fingerprints_hash_ops DEFAULT FOR TYPE fingerprints USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 fingerprints_hash(fingerprints),
    FUNCTION 2 fingerprints_hash_extended(fingerprints, bigint);

COMMENT ON FUNCTION fingerprints_eq(fingerprints, fingerprints) IS 'implementation of = for fingerprints';
COMMENT ON FUNCTION fingerprints_ne(fingerprints, fingerprints) IS 'implementation of <> for fingerprints';
COMMENT ON FUNCTION fingerprints_lt(fingerprints, fingerprints) IS 'implementation of < for fingerprints';
COMMENT ON FUNCTION fingerprints_le(fingerprints, fingerprints) IS 'implementation of <= for fingerprints';
COMMENT ON FUNCTION fingerprints_gt(fingerprints, fingerprints) IS 'implementation of > for fingerprints';
COMMENT ON FUNCTION fingerprints_ge(fingerprints, fingerprints) IS 'implementation of >= for fingerprints';
COMMENT ON FUNCTION fingerprints_cmp(fingerprints, fingerprints) IS 'btree support: entry by entry, unsigned';
COMMENT ON FUNCTION fingerprints_hash(fingerprints) IS 'hash support for fingerprints';
COMMENT ON FUNCTION fingerprints_hash_extended(fingerprints, bigint) IS 'extended (seeded) hash support for fingerprints';
COMMENT ON OPERATOR = (fingerprints, fingerprints) IS 'equal: all 128 entries equal';
COMMENT ON OPERATOR <> (fingerprints, fingerprints) IS 'not equal';
COMMENT ON OPERATOR < (fingerprints, fingerprints) IS 'less than, entry by entry (an arbitrary total order)';
COMMENT ON OPERATOR <= (fingerprints, fingerprints) IS 'less than or equal, entry by entry';
COMMENT ON OPERATOR > (fingerprints, fingerprints) IS 'greater than, entry by entry';
COMMENT ON OPERATOR >= (fingerprints, fingerprints) IS 'greater than or equal, entry by entry';
COMMENT ON OPERATOR CLASS fingerprints_btree_ops USING btree IS 'entry-by-entry order of fingerprints';
COMMENT ON OPERATOR CLASS fingerprints_hash_ops USING hash IS 'hashing of fingerprints';

-- ----- From pages: the same tokenizer, shingles and options as simhash(text) ------------------
CREATE FUNCTION fingerprints(content text, shingle text DEFAULT 'word', size integer DEFAULT 3,
                             fold_case boolean DEFAULT true)
    RETURNS fingerprints
    AS 'MODULE_PATHNAME', 'fingerprints_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fingerprints_html(html text, shingle text DEFAULT 'word', size integer DEFAULT 3,
                                  fold_case boolean DEFAULT true)
    RETURNS fingerprints
    AS 'MODULE_PATHNAME', 'fingerprints_html' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION fingerprints(text, text, integer, boolean) IS
    'legacy fingerprints of page text: 128 min-hashes of the features simhash(text) uses';
COMMENT ON FUNCTION fingerprints_html(text, text, integer, boolean) IS
    'legacy fingerprints of an HTML page: fingerprints of its visible text (html_text)';

-- ----- What is computed from them -------------------------------------------------------------
CREATE FUNCTION fingerprint_diff(a fingerprints, b fingerprints) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION simhash(fingerprints) RETURNS simhash
    AS 'MODULE_PATHNAME', 'simhash_of_fingerprints' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fingerprint_band_keys(fp fingerprints, d integer) RETURNS bigint[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fingerprints(entries bigint[]) RETURNS fingerprints
    AS 'MODULE_PATHNAME', 'fingerprints_from_bigint_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fingerprint_entries(fp fingerprints) RETURNS bigint[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION fingerprint_diff(fingerprints, fingerprints) IS
    'legacy difference: how many of the 128 entries differ (0..128); duplicate when <= 6';
COMMENT ON FUNCTION simhash(fingerprints) IS
    'simhash of the 128 entries taken as feature hashes of weight 1 (= simhash(fingerprint_entries(fp)))';
COMMENT ON FUNCTION fingerprint_band_keys(fingerprints, integer) IS
    'd + 1 band keys: fingerprints within difference d share at least one (d = 0..127)';
COMMENT ON FUNCTION fingerprints(bigint[]) IS 'fingerprints from their 128 entries';
COMMENT ON FUNCTION fingerprint_entries(fingerprints) IS 'the 128 entries as bigint[] (two''s complement)';
-- ===== Confirmed duplicates: the resemblance sketch, 512 one-bit min-hashes in 64 bytes ========
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

-- Equality, and an order of the 64 bytes (unsigned, byte 0 first: the order of the text form) that
-- means nothing about resemblance but lets sketches be sorted, grouped, joined and indexed.
CREATE FUNCTION resemblance_sketch_eq(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_ne(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_lt(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_le(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_gt(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_ge(resemblance_sketch, resemblance_sketch) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_cmp(resemblance_sketch, resemblance_sketch) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_hash(resemblance_sketch) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION resemblance_sketch_hash_extended(resemblance_sketch, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR = (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR < (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR > (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (
    LEFTARG = resemblance_sketch, RIGHTARG = resemblance_sketch, FUNCTION = resemblance_sketch_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
-- Equal sketches are equal bytes, so a btree index may deduplicate them (btequalimage).
CREATE OPERATOR CLASS resemblance_sketch_btree_ops DEFAULT FOR TYPE resemblance_sketch USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 resemblance_sketch_cmp(resemblance_sketch, resemblance_sketch),
    FUNCTION 4 btequalimage(oid);
CREATE OPERATOR CLASS resemblance_sketch_hash_ops DEFAULT FOR TYPE resemblance_sketch USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 resemblance_sketch_hash(resemblance_sketch),
    FUNCTION 2 resemblance_sketch_hash_extended(resemblance_sketch, bigint);

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
COMMENT ON FUNCTION resemblance_sketch_lt(resemblance_sketch, resemblance_sketch) IS 'implementation of < for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_le(resemblance_sketch, resemblance_sketch) IS 'implementation of <= for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_gt(resemblance_sketch, resemblance_sketch) IS 'implementation of > for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_ge(resemblance_sketch, resemblance_sketch) IS 'implementation of >= for resemblance_sketch';
COMMENT ON FUNCTION resemblance_sketch_cmp(resemblance_sketch, resemblance_sketch) IS
    'btree support: -1, 0 or 1 in the order of the bytes (unsigned, byte 0 first)';
COMMENT ON FUNCTION resemblance_sketch_hash(resemblance_sketch) IS 'hash support: a hash of the 64 bytes';
COMMENT ON FUNCTION resemblance_sketch_hash_extended(resemblance_sketch, bigint) IS
    'extended (seeded) hash support: a hash of the 64 bytes';
COMMENT ON OPERATOR = (resemblance_sketch, resemblance_sketch) IS 'equal';
COMMENT ON OPERATOR <> (resemblance_sketch, resemblance_sketch) IS 'not equal';
COMMENT ON OPERATOR < (resemblance_sketch, resemblance_sketch) IS 'less than (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR <= (resemblance_sketch, resemblance_sketch) IS 'less than or equal (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR > (resemblance_sketch, resemblance_sketch) IS 'greater than (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR >= (resemblance_sketch, resemblance_sketch) IS 'greater than or equal (order of the bytes, not of resemblance)';
COMMENT ON OPERATOR CLASS resemblance_sketch_btree_ops USING btree IS
    'order of resemblance sketches'' bytes (that of their text form): sorting, grouping, unique indexes';
COMMENT ON OPERATOR CLASS resemblance_sketch_hash_ops USING hash IS 'hashing of resemblance sketches';
COMMENT ON FUNCTION resemblance_sketch(text, text, integer, boolean) IS
    'resemblance sketch of page text, over the features simhash(text) uses';
COMMENT ON FUNCTION resemblance_sketch_html(text, text, integer, boolean) IS
    'resemblance sketch of an HTML page: the sketch of its visible text (html_text)';
COMMENT ON FUNCTION resemblance(resemblance_sketch, resemblance_sketch) IS
    'estimated shingle resemblance (Jaccard) of two pages, 0..1 in steps of 1/256';
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
-- ===== Confirmed crawl-scale jobs ============================================================
-- source: SQL text returning (id bigint|integer|smallint, sh simhash|bigint, sketch resemblance_sketch).
-- A pair within k bits is kept only if resemblance(sketches) >= min_resemblance. The default k is 7:
-- confirmation keeps precision while k rises (README "Confirmed duplicates").
CREATE FUNCTION simhash_pairs_confirmed(source text, k integer DEFAULT 7,
                                        min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (id_a bigint, id_b bigint, distance integer, resemblance double precision)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION simhash_clusters_confirmed(source text, k integer DEFAULT 7,
                                           min_resemblance double precision DEFAULT 0.87,
                                           singletons boolean DEFAULT false)
    RETURNS TABLE (id bigint, cluster_id bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION simhash_pairs_confirmed(text, integer, double precision) IS
    'every pair of source rows (id, sh, sketch) within Hamming distance k whose estimated resemblance is at least min_resemblance, with the estimate';
COMMENT ON FUNCTION simhash_clusters_confirmed(text, integer, double precision, boolean) IS
    'connected components of the confirmed within-k graph: cluster_id = smallest id in the cluster';
-- ===== Near-duplicate-aware ingestion ======================================================
-- Two hashes within k share one of their k + 1 band keys, so inserters that lock every band key
-- of their page before looking for its near-duplicates are serialized exactly when their pages
-- could be near-duplicates of each other, and no two near-duplicates are ever checked blind to
-- each other. Transaction-scoped advisory locks, taken in sorted order (no deadlock between
-- callers), released at commit or rollback.
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
-- ===== Choosing the threshold: simhash against the legacy fingerprints =====================
-- Sources are SQL text, as for the crawl-scale jobs. Pair sources return one row per pair of pages
-- with (fp_diff, sh_diff) as their first two columns; histogram sources (fp_diff, sh_diff, pairs).
--
-- search_path (CVE-2018-1058, CVE-2020-14350): a source is the caller's own SQL and runs under the
-- caller's search_path, so the functions that run one cannot pin theirs. Their bodies instead name
-- every function, operator and type they use with its schema (pg_catalog.format,
-- OPERATOR(pg_catalog.<=), @extschema@.hamming, pg_catalog.record): nothing a role plants in a
-- schema of the caller's path is ever resolved. Functions that run no source pin
-- search_path = pg_catalog, pg_temp. sql/search_path_hostile.sql plants look-alikes of every name.

CREATE FUNCTION simhash_sample_pairs(source text, pairs bigint, seed bigint DEFAULT 0,
                                     within_group boolean DEFAULT false)
    RETURNS TABLE (id_a bigint, id_b bigint)
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_sample_pairs(text, bigint, bigint, boolean) IS
    'uniformly random pairs of distinct pages (id_a < id_b) from a source (id[, group]), reproducible by seed';

-- Every pair of pages under either threshold, with both differences: simhash_pairs for the simhash
-- side and a band-key join for the fingerprint side, so the disagreement corners are exact.
CREATE FUNCTION simhash_threshold_pairs(source text, k integer DEFAULT 5, d integer DEFAULT 6)
    RETURNS TABLE (id_a bigint, id_b bigint, fp_diff integer, sh_diff integer)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    message pg_catalog.text;
BEGIN
    IF k OPERATOR(pg_catalog.<) 0 OR k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'simhash radius k must be between 0 and 64, got %', k USING ERRCODE = '22023';
    END IF;
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 127 THEN
        RAISE EXCEPTION 'fingerprint difference d must be between 0 and 127, got %', d USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.simhash_check_source(source);
    RETURN QUERY EXECUTE pg_catalog.format($q$
        WITH src AS MATERIALIZED (SELECT s.id::bigint AS id, s.sh, s.fp FROM (%1$s) s(id, sh, fp)
                                  WHERE s.id IS NOT NULL AND s.sh IS NOT NULL AND s.fp IS NOT NULL),
        keys AS (SELECT id, pg_catalog.unnest(@extschema@.fingerprint_band_keys(fp, %3$s)) AS key FROM src),
        candidates AS (
            SELECT p.id_a, p.id_b FROM @extschema@.simhash_pairs(%4$L, %2$s) p
            UNION
            SELECT a.id, b.id FROM keys a JOIN keys b
                ON a.key OPERATOR(pg_catalog.=) b.key AND a.id OPERATOR(pg_catalog.<) b.id)
        SELECT c.id_a, c.id_b, @extschema@.fingerprint_diff(a.fp, b.fp), @extschema@.hamming(a.sh, b.sh)::integer
        FROM candidates c JOIN src a ON a.id OPERATOR(pg_catalog.=) c.id_a
                          JOIN src b ON b.id OPERATOR(pg_catalog.=) c.id_b
        WHERE @extschema@.hamming(a.sh, b.sh) OPERATOR(@extschema@.<=) %2$s
           OR @extschema@.fingerprint_diff(a.fp, b.fp) OPERATOR(pg_catalog.<=) %3$s
        ORDER BY 1, 2 $q$, source, k, d, pg_catalog.format('SELECT id, sh FROM (%s) s(id, sh, fp)', source));
EXCEPTION WHEN undefined_table OR undefined_function OR undefined_object THEN
    -- The source's error under an empty search_path (pg_restore) says why: see src/pg/common/source_hint.h.
    IF EXISTS (SELECT FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) s(nsp)
               WHERE s.nsp OPERATOR(pg_catalog.<>) 'pg_catalog' AND NOT pg_catalog.starts_with(s.nsp, 'pg_temp')) THEN
        RAISE;
    END IF;
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT;
    RAISE EXCEPTION USING MESSAGE = message, ERRCODE = SQLSTATE,
        HINT = 'The source query runs with the caller''s search_path, which names no schema here '
               '(pg_restore and REFRESH MATERIALIZED VIEW during a restore run with an empty one). '
               'Schema-qualify what the source names, e.g. SELECT id, sh FROM public.pages, or select from '
               'a schema-qualified view.';
END $$;
COMMENT ON FUNCTION simhash_threshold_pairs(text, integer, integer) IS
    'every pair with simhash distance <= k or fingerprint difference <= d, from a source (id, sh, fp)';

-- The read-only check of the C functions' sources, for the PL/pgSQL functions: one plain SELECT
-- that neither writes nor locks rows, or the same errors and SQLSTATEs as theirs.
CREATE FUNCTION simhash_check_source(source text) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_check_source(text) IS
    'analysis support: raises an error unless a source query is one SELECT that only reads';

-- Checks one (fp_diff, sh_diff) of a pair source.
CREATE FUNCTION simhash_check_differences(fp_diff bigint, sh_diff bigint) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF fp_diff IS NULL OR sh_diff IS NULL THEN
        RAISE EXCEPTION 'a pair has a NULL difference' USING ERRCODE = '22004',
            HINT = 'The source must return (fp_diff, sh_diff) for every pair.';
    END IF;
    IF fp_diff NOT BETWEEN 0 AND 128 OR sh_diff NOT BETWEEN 0 AND 64 THEN
        RAISE EXCEPTION 'a pair has differences (%, %) outside fingerprint 0..128, simhash 0..64', fp_diff, sh_diff
            USING ERRCODE = '22023';
    END IF;
END $$;
COMMENT ON FUNCTION simhash_check_differences(bigint, bigint) IS
    'analysis support: raises an error for a NULL or out-of-range pair of differences';

CREATE FUNCTION simhash_joint_histogram(source text)
    RETURNS TABLE (fp_diff integer, sh_diff integer, pairs bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    cell pg_catalog.record;
    message pg_catalog.text;
BEGIN
    PERFORM @extschema@.simhash_check_source(source);
    FOR cell IN EXECUTE pg_catalog.format(
        -- Fixed column types: PL/pgSQL caches the plans of the expressions on cell by the first
        -- call's column types, so the record keeps one shape whatever the source's types are.
        'SELECT s.f::pg_catalog.numeric AS f, s.h::pg_catalog.numeric AS h, pg_catalog.count(*) AS n '
        'FROM (%s) s(f, h) GROUP BY 1, 2 ORDER BY 1, 2',
        source)
    LOOP
        -- Differences are counts: a fractional one is refused, never rounded into a cell.
        IF cell.f OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.f) OR cell.h OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.h) THEN
            RAISE EXCEPTION 'a pair has differences (%, %) that are not whole numbers', cell.f, cell.h
                USING ERRCODE = '22P02',
                      HINT = 'The differences count differing fingerprint entries and simhash bits.';
        END IF;
        PERFORM @extschema@.simhash_check_differences(cell.f::pg_catalog.int8, cell.h::pg_catalog.int8);
        fp_diff := cell.f::pg_catalog.int8; sh_diff := cell.h::pg_catalog.int8; pairs := cell.n;
        RETURN NEXT;
    END LOOP;
EXCEPTION WHEN undefined_table OR undefined_function OR undefined_object THEN
    -- The source's error under an empty search_path (pg_restore) says why: see src/pg/common/source_hint.h.
    IF EXISTS (SELECT FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) s(nsp)
               WHERE s.nsp OPERATOR(pg_catalog.<>) 'pg_catalog' AND NOT pg_catalog.starts_with(s.nsp, 'pg_temp')) THEN
        RAISE;
    END IF;
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT;
    RAISE EXCEPTION USING MESSAGE = message, ERRCODE = SQLSTATE,
        HINT = 'The source query runs with the caller''s search_path, which names no schema here '
               '(pg_restore and REFRESH MATERIALIZED VIEW during a restore run with an empty one). '
               'Schema-qualify what the source names, e.g. SELECT id, sh FROM public.pages, or select from '
               'a schema-qualified view.';
END $$;
COMMENT ON FUNCTION simhash_joint_histogram(text) IS
    'pairs per (fingerprint difference, simhash difference) cell, from a pair source (fp_diff, sh_diff)';

CREATE FUNCTION simhash_quadrants(source text, d integer DEFAULT 6, k integer DEFAULT 5,
                                  total_pairs bigint DEFAULT NULL)
    RETURNS TABLE (quadrant text, fingerprints_say text, simhash_says text, pairs bigint)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
DECLARE
    both_dup bigint := 0; sh_only bigint := 0; fp_only bigint := 0; neither bigint := 0; seen bigint := 0;
    cell pg_catalog.record;
BEGIN
    IF source IS NULL OR d IS NULL OR k IS NULL THEN
        RAISE EXCEPTION 'source, d and k must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR k OPERATOR(pg_catalog.<) 0 OR k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and k in 0..64, got d = %, k = %', d, k USING ERRCODE = '22023';
    END IF;
    FOR cell IN SELECT * FROM @extschema@.simhash_joint_histogram(source) LOOP
        seen := seen OPERATOR(pg_catalog.+) cell.pairs;
        IF cell.fp_diff OPERATOR(pg_catalog.<=) d AND cell.sh_diff OPERATOR(pg_catalog.<=) k THEN
            both_dup := both_dup OPERATOR(pg_catalog.+) cell.pairs;
        ELSIF cell.sh_diff OPERATOR(pg_catalog.<=) k THEN sh_only := sh_only OPERATOR(pg_catalog.+) cell.pairs;
        ELSIF cell.fp_diff OPERATOR(pg_catalog.<=) d THEN fp_only := fp_only OPERATOR(pg_catalog.+) cell.pairs;
        ELSE neither := neither OPERATOR(pg_catalog.+) cell.pairs;
        END IF;
    END LOOP;
    IF total_pairs IS NOT NULL THEN
        IF total_pairs OPERATOR(pg_catalog.<) seen THEN
            RAISE EXCEPTION 'total_pairs (%) is smaller than the % pairs of the source', total_pairs, seen
                USING ERRCODE = '22023';
        END IF;
        neither := neither OPERATOR(pg_catalog.+) (total_pairs OPERATOR(pg_catalog.-) seen);
    END IF;
    RETURN QUERY VALUES ('both duplicate', 'duplicate', 'duplicate', both_dup),
                        ('simhash only', 'different', 'duplicate', sh_only),
                        ('fingerprints only', 'duplicate', 'different', fp_only),
                        ('neither', 'different', 'different', neither);
END $$;
COMMENT ON FUNCTION simhash_quadrants(text, integer, integer, bigint) IS
    'pairs in each quadrant of thresholds (fingerprints <= d, simhash <= k); total_pairs adds unlisted pairs to neither';

CREATE FUNCTION simhash_threshold_sweep(source text, d integer DEFAULT 6, max_k integer DEFAULT 10,
                                        allowed bigint DEFAULT 0)
    RETURNS TABLE (k integer, flagged bigint, flagged_fp_different bigint, fp_flagged_missed bigint,
                   recommended boolean)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
BEGIN
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR max_k OPERATOR(pg_catalog.<) 0 OR max_k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and max_k in 0..64, got d = %, max_k = %', d, max_k
            USING ERRCODE = '22023';
    END IF;
    IF allowed OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'allowed must not be negative, got %', allowed USING ERRCODE = '22023';
    END IF;
    RETURN QUERY
    WITH h AS (SELECT * FROM @extschema@.simhash_joint_histogram(source)),
    sweep AS (
        SELECT g.k,
               coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k), 0)::bigint
                   AS flagged,
               coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k
                                                         AND h.fp_diff OPERATOR(pg_catalog.>) d), 0)::bigint
                   AS fp_different,
               coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.>) g.k
                                                         AND h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint
                   AS missed
        FROM pg_catalog.generate_series(0, max_k) g(k) LEFT JOIN h ON true
        GROUP BY g.k)
    SELECT s.k, s.flagged, s.fp_different, s.missed,
           coalesce(s.k OPERATOR(pg_catalog.=) (SELECT pg_catalog.max(s2.k) FROM sweep s2
                                                WHERE s2.fp_different OPERATOR(pg_catalog.<=) allowed), false)
    FROM sweep s ORDER BY s.k;
END $$;
COMMENT ON FUNCTION simhash_threshold_sweep(text, integer, integer, bigint) IS
    'per simhash k: pairs flagged, flagged but fingerprints say different (> d), fingerprint duplicates missed; recommended = largest k with at most allowed flagged-but-different';

CREATE FUNCTION simhash_heatmap_svg(histogram text, scale text DEFAULT 'log', d integer DEFAULT 6,
                                    k integer DEFAULT 5,
                                    title text DEFAULT 'Pairs of pages: fingerprint difference vs simhash difference')
    RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION simhash_heatmap_svg(text, text, integer, integer, text) IS
    'standalone SVG heat map of a histogram source (fp_diff, sh_diff, pairs): log (default) or linear colour scale, threshold lines d and k';
-- ===== Choosing the threshold with confirmation: simhash alone, simhash confirmed, fingerprints =====
-- The same sources and the same search_path rule as 60_analysis.sql: every name the bodies use is
-- schema-qualified, because a source runs under the caller's search_path.

-- Every pair under either threshold (simhash_threshold_pairs) with the resemblance estimate of its
-- sketches; source (id, sh, fp, sk). Rows without a sketch are left out.
CREATE FUNCTION simhash_threshold_pairs_confirmed(source text, k integer DEFAULT 5, d integer DEFAULT 6)
    RETURNS TABLE (id_a bigint, id_b bigint, fp_diff integer, sh_diff integer, resemblance double precision)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
BEGIN
    PERFORM @extschema@.simhash_check_source(source);
    RETURN QUERY EXECUTE pg_catalog.format($q$
        WITH src AS MATERIALIZED (SELECT s.id::bigint AS id, s.sk FROM (%1$s) s(id, sh, fp, sk)
                                  WHERE s.id IS NOT NULL AND s.sk IS NOT NULL)
        SELECT t.id_a, t.id_b, t.fp_diff, t.sh_diff, @extschema@.resemblance(a.sk, b.sk)
        FROM @extschema@.simhash_threshold_pairs(%2$L, %3$s, %4$s) t
             JOIN src a ON a.id OPERATOR(pg_catalog.=) t.id_a
             JOIN src b ON b.id OPERATOR(pg_catalog.=) t.id_b
        ORDER BY 1, 2 $q$, source,
        pg_catalog.format('SELECT id, sh, fp FROM (%s) s(id, sh, fp, sk) WHERE s.sk IS NOT NULL', source), k, d);
END $$;
COMMENT ON FUNCTION simhash_threshold_pairs_confirmed(text, integer, integer) IS
    'every pair with simhash distance <= k or fingerprint difference <= d, from a source (id, sh, fp, sk), with the sketches'' resemblance';

-- Pairs per (fingerprint difference, simhash difference, confirmed) cell, from a pair source
-- (fp_diff, sh_diff, resemblance): confirmed = resemblance >= min_resemblance.
CREATE FUNCTION simhash_confirmed_histogram(source text, min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (fp_diff integer, sh_diff integer, confirmed boolean, pairs bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
DECLARE
    cell pg_catalog.record;
    message pg_catalog.text;
BEGIN
    IF NOT (min_resemblance OPERATOR(pg_catalog.>=) 0 AND min_resemblance OPERATOR(pg_catalog.<=) 1) THEN
        RAISE EXCEPTION 'min_resemblance must be between 0 and 1, got %', min_resemblance USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.simhash_check_source(source);
    FOR cell IN EXECUTE pg_catalog.format(
        -- Fixed column types: the loop's record keeps one shape whatever the source's types.
        'SELECT s.f::pg_catalog.numeric AS f, s.h::pg_catalog.numeric AS h, s.r::pg_catalog.float8 AS r, '
        'pg_catalog.count(*) AS n FROM (%s) s(f, h, r) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3',
        source)
    LOOP
        IF cell.f OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.f) OR cell.h OPERATOR(pg_catalog.<>) pg_catalog.trunc(cell.h) THEN
            RAISE EXCEPTION 'a pair has differences (%, %) that are not whole numbers', cell.f, cell.h
                USING ERRCODE = '22P02',
                      HINT = 'The differences count differing fingerprint entries and simhash bits.';
        END IF;
        PERFORM @extschema@.simhash_check_differences(cell.f::pg_catalog.int8, cell.h::pg_catalog.int8);
        IF cell.r IS NULL THEN
            RAISE EXCEPTION 'a pair has a NULL resemblance' USING ERRCODE = '22004',
                HINT = 'The source must return (fp_diff, sh_diff, resemblance) for every pair.';
        END IF;
        IF NOT (cell.r OPERATOR(pg_catalog.>=) 0 AND cell.r OPERATOR(pg_catalog.<=) 1) THEN
            RAISE EXCEPTION 'a pair has resemblance % outside 0..1', cell.r USING ERRCODE = '22023';
        END IF;
        fp_diff := cell.f::pg_catalog.int4; sh_diff := cell.h::pg_catalog.int4;
        confirmed := cell.r OPERATOR(pg_catalog.>=) min_resemblance; pairs := cell.n;
        RETURN NEXT;
    END LOOP;
EXCEPTION WHEN undefined_table OR undefined_function OR undefined_object THEN
    -- The source's error under an empty search_path (pg_restore) says why: see src/pg/common/source_hint.h.
    IF EXISTS (SELECT FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) s(nsp)
               WHERE s.nsp OPERATOR(pg_catalog.<>) 'pg_catalog' AND NOT pg_catalog.starts_with(s.nsp, 'pg_temp')) THEN
        RAISE;
    END IF;
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT;
    RAISE EXCEPTION USING MESSAGE = message, ERRCODE = SQLSTATE,
        HINT = 'The source query runs with the caller''s search_path, which names no schema here '
               '(pg_restore and REFRESH MATERIALIZED VIEW during a restore run with an empty one). '
               'Schema-qualify what the source names, e.g. SELECT id, sh FROM public.pages, or select from '
               'a schema-qualified view.';
END $$;
COMMENT ON FUNCTION simhash_confirmed_histogram(text, double precision) IS
    'pairs per (fingerprint difference, simhash difference, confirmed) cell, from a pair source (fp_diff, sh_diff, resemblance)';

-- The quadrants of simhash_quadrants twice: for simhash alone and for simhash confirmed (a pair is
-- a simhash duplicate when sh_diff <= k and, confirmed, resemblance >= min_resemblance).
CREATE FUNCTION simhash_quadrants_confirmed(source text, d integer DEFAULT 6, k integer DEFAULT 5,
                                            min_resemblance double precision DEFAULT 0.87,
                                            total_pairs bigint DEFAULT NULL)
    RETURNS TABLE (rule text, quadrant text, fingerprints_say text, rule_says text, pairs bigint)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
DECLARE
    -- counts[rule * 4 + q]: rule 0 simhash, 1 simhash confirmed; q 1 both, 2 simhash only,
    -- 3 fingerprints only, 4 neither.
    counts bigint[] := '{0,0,0,0,0,0,0,0}';
    seen bigint := 0;
    names pg_catalog.text[] := '{both duplicate,simhash only,fingerprints only,neither}';
    fp_says pg_catalog.text[] := '{duplicate,different,duplicate,different}';
    rule_says_q pg_catalog.text[] := '{duplicate,duplicate,different,different}';
    cell pg_catalog.record;
    fp_dup boolean;
    sh_dup boolean;
    q integer;
BEGIN
    IF source IS NULL OR d IS NULL OR k IS NULL OR min_resemblance IS NULL THEN
        RAISE EXCEPTION 'source, d, k and min_resemblance must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR k OPERATOR(pg_catalog.<) 0 OR k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and k in 0..64, got d = %, k = %', d, k USING ERRCODE = '22023';
    END IF;
    FOR cell IN SELECT * FROM @extschema@.simhash_confirmed_histogram(source, min_resemblance) LOOP
        seen := seen OPERATOR(pg_catalog.+) cell.pairs;
        fp_dup := cell.fp_diff OPERATOR(pg_catalog.<=) d;
        FOR rule_index IN 0..1 LOOP
            sh_dup := cell.sh_diff OPERATOR(pg_catalog.<=) k AND (rule_index OPERATOR(pg_catalog.=) 0 OR cell.confirmed);
            q := CASE WHEN fp_dup AND sh_dup THEN 1 WHEN sh_dup THEN 2 WHEN fp_dup THEN 3 ELSE 4 END;
            counts[rule_index OPERATOR(pg_catalog.*) 4 OPERATOR(pg_catalog.+) q] :=
                counts[rule_index OPERATOR(pg_catalog.*) 4 OPERATOR(pg_catalog.+) q] OPERATOR(pg_catalog.+) cell.pairs;
        END LOOP;
    END LOOP;
    IF total_pairs IS NOT NULL THEN
        IF total_pairs OPERATOR(pg_catalog.<) seen THEN
            RAISE EXCEPTION 'total_pairs (%) is smaller than the % pairs of the source', total_pairs, seen
                USING ERRCODE = '22023';
        END IF;
        counts[4] := counts[4] OPERATOR(pg_catalog.+) (total_pairs OPERATOR(pg_catalog.-) seen);
        counts[8] := counts[8] OPERATOR(pg_catalog.+) (total_pairs OPERATOR(pg_catalog.-) seen);
    END IF;
    FOR rule_index IN 0..1 LOOP
        FOR q IN 1..4 LOOP
            rule := CASE WHEN rule_index OPERATOR(pg_catalog.=) 0 THEN 'simhash' ELSE 'simhash confirmed' END;
            quadrant := names[q];
            fingerprints_say := fp_says[q];
            rule_says := rule_says_q[q];
            pairs := counts[rule_index OPERATOR(pg_catalog.*) 4 OPERATOR(pg_catalog.+) q];
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;
COMMENT ON FUNCTION simhash_quadrants_confirmed(text, integer, integer, double precision, bigint) IS
    'pairs in each quadrant of thresholds for simhash alone and simhash confirmed (resemblance >= min_resemblance), from (fp_diff, sh_diff, resemblance)';

-- Per k: what simhash alone flags, what simhash confirmed flags, and how each agrees with the
-- fingerprints (flagged though fingerprints say different; fingerprint duplicates missed).
CREATE FUNCTION simhash_threshold_sweep_confirmed(source text, d integer DEFAULT 6, max_k integer DEFAULT 10,
                                                  min_resemblance double precision DEFAULT 0.87)
    RETURNS TABLE (k integer, fp_flagged bigint, flagged bigint, flagged_fp_different bigint,
                   fp_flagged_missed bigint, confirmed bigint, confirmed_fp_different bigint,
                   confirmed_fp_missed bigint)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE AS $$
BEGIN
    IF d OPERATOR(pg_catalog.<) 0 OR d OPERATOR(pg_catalog.>) 128
       OR max_k OPERATOR(pg_catalog.<) 0 OR max_k OPERATOR(pg_catalog.>) 64 THEN
        RAISE EXCEPTION 'thresholds must be d in 0..128 and max_k in 0..64, got d = %, max_k = %', d, max_k
            USING ERRCODE = '22023';
    END IF;
    RETURN QUERY
    WITH h AS MATERIALIZED (SELECT * FROM @extschema@.simhash_confirmed_histogram(source, min_resemblance))
    SELECT g.k,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k
                                                     AND h.fp_diff OPERATOR(pg_catalog.>) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.>) g.k
                                                     AND h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k AND h.confirmed), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE h.sh_diff OPERATOR(pg_catalog.<=) g.k AND h.confirmed
                                                     AND h.fp_diff OPERATOR(pg_catalog.>) d), 0)::bigint,
           coalesce(pg_catalog.sum(h.pairs) FILTER (WHERE NOT (h.sh_diff OPERATOR(pg_catalog.<=) g.k AND h.confirmed)
                                                     AND h.fp_diff OPERATOR(pg_catalog.<=) d), 0)::bigint
    FROM pg_catalog.generate_series(0, max_k) g(k) LEFT JOIN h ON true
    GROUP BY g.k ORDER BY g.k;
END $$;
COMMENT ON FUNCTION simhash_threshold_sweep_confirmed(text, integer, integer, double precision) IS
    'per simhash k: fingerprint duplicates, and for simhash alone and confirmed the pairs flagged, flagged though fingerprints say different (> d), fingerprint duplicates missed';
