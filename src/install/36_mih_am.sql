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
