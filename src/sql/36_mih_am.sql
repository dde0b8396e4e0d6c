-- ===== Index access method simhash_mih: exact radius search over block-sorted tables ========
-- CREATE INDEX ON pages USING simhash_mih (sh);                 -- blocks chosen from the row count
-- CREATE INDEX ON pages USING simhash_mih (sh) WITH (blocks = 4);
CREATE FUNCTION simhash_mih_handler(internal) RETURNS index_am_handler
    AS 'MODULE_PATHNAME' LANGUAGE C;
CREATE ACCESS METHOD simhash_mih TYPE INDEX HANDLER simhash_mih_handler;

CREATE OPERATOR CLASS simhash_ops DEFAULT FOR TYPE simhash USING simhash_mih AS
    OPERATOR 1 <@ (simhash, hamming_ball);

COMMENT ON ACCESS METHOD simhash_mih IS 'exact radius search on simhash by multi-index hashing over block-sorted tables';
COMMENT ON OPERATOR CLASS simhash_ops USING simhash_mih IS 'exact radius search (<@) on simhash';
COMMENT ON FUNCTION simhash_mih_handler(internal) IS 'index access method handler of simhash_mih (called by the server only)';
