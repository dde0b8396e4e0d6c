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
