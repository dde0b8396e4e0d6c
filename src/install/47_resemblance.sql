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
