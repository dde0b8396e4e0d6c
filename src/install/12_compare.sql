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
