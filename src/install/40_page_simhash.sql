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
