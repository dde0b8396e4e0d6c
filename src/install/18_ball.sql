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
