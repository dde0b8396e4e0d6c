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
