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
