-- A compact simhash_mih index (WITH (compact = on)): tables 1..m-1 hold 4-byte keys confirmed in
-- table 0. Its answers equal a sequential scan's for every block count (dense and sparse key pages),
-- radius and scan kind, with clusters, exact duplicates and NULLs, and after inserts, deletes,
-- updates and the VACUUM that merges them; it is smaller; simhash_mih_check reads its key pages.
SET client_min_messages = warning;
-- Autovacuum off: a VACUUM writes the pending rows as a run, so it would change the state shown.
CREATE TABLE cp (id int PRIMARY KEY, sh simhash) WITH (autovacuum_enabled = off);
INSERT INTO cp SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) i;
-- near copies: 2 or 3 bits flipped anywhere, so answers are found through every table
INSERT INTO cp
SELECT 100000 + c * 10 + r,
       (SELECT sh FROM cp WHERE id = c) #
       ((1::bigint << ((c * 7 + r * 13) % 64)) | (1::bigint << ((c + r * 29) % 64)) |
        (CASE WHEN r % 3 = 0 THEN 1::bigint << ((c * 3 + r * 11) % 64) ELSE 0 END))::simhash
FROM generate_series(1, 2000) c, generate_series(1, 6) r;
-- exact duplicates: one key stands for several rows
INSERT INTO cp SELECT 200000 + i, (SELECT sh FROM cp WHERE id = i % 50 + 1) FROM generate_series(1, 300) i;
INSERT INTO cp VALUES (300000, NULL);
ANALYZE cp;
CREATE TABLE cq AS
SELECT sh AS q FROM cp WHERE id % 211 = 0 AND sh IS NOT NULL
UNION ALL SELECT ('x' || substr(md5('q' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 20) i;

-- cp_mismatches(k): queries whose answer through the index (an index scan, then a bitmap scan)
-- differs from a sequential scan's.
CREATE FUNCTION cp_mismatches(k int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a bigint[]; b bigint[]; c bigint[];
BEGIN
    FOR q_ IN SELECT q FROM cq LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO a FROM cp WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = off;
        SELECT array_agg(id ORDER BY id) INTO c FROM cp WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO b FROM cp WHERE hamming(sh, q_) <= k;
        RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b OR c IS DISTINCT FROM b THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;

-- cp_knn_mismatches(): queries whose 10 nearest distances through the index differ.
CREATE FUNCTION cp_knn_mismatches() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a int[]; b int[];
BEGIN
    FOR q_ IN SELECT q FROM cq LOOP
        SET LOCAL enable_seqscan = off;
        SELECT array_agg(d) INTO a FROM (SELECT hamming(sh, q_) AS d FROM cp ORDER BY sh <-> q_ LIMIT 10) s;
        SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(d) INTO b FROM (SELECT hamming(sh, q_) AS d FROM cp ORDER BY hamming(sh, q_) NULLS LAST LIMIT 10) s;
        RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;

CREATE INDEX cp_mih ON cp USING simhash_mih (sh) WITH (compact = on);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM cp WHERE hamming(sh, '0123456789abcdef') <= 5;
RESET enable_seqscan;
SELECT k, cp_mismatches(k) FROM unnest(ARRAY[0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 64]) k;
SELECT cp_knn_mismatches();
SELECT blocks, sorted_rows, live_sorted_rows FROM simhash_mih_check('cp_mih');

-- Every block count: sparse key pages (2..4 blocks: fewer rows than block values) and dense ones
-- (5 and 6).
SET client_min_messages = notice;
DO $$
DECLARE m int; bad bigint;
BEGIN
    FOR m IN 2..6 LOOP
        DROP INDEX cp_mih;
        EXECUTE format('CREATE INDEX cp_mih ON cp USING simhash_mih (sh) WITH (blocks = %s, compact = on)', m);
        PERFORM simhash_mih_check('cp_mih');
        SELECT sum(cp_mismatches(k)) INTO bad FROM unnest(ARRAY[0, 2, 3, 5, 8, 12]) k;
        RAISE NOTICE 'blocks=%: % mismatches, % nearest-neighbour mismatches', m, bad, cp_knn_mismatches();
    END LOOP;
END $$;
SET client_min_messages = warning;

-- Smaller than the default layout: key tables of 5 dense blocks (about 4.4 bytes a row each)
-- against tables of distinct hashes (8 bytes a row each).
CREATE INDEX cp_plain ON cp USING simhash_mih (sh) WITH (blocks = 5);
SELECT pg_relation_size('cp_mih') < 0.8 * pg_relation_size('cp_plain') AS compact_is_smaller;
DROP INDEX cp_plain;

-- Changes: pending rows, dead rows, then the VACUUM that writes them as a run of key tables, and
-- a merge of every run.
DROP INDEX cp_mih;
CREATE INDEX cp_mih ON cp USING simhash_mih (sh) WITH (compact = on);
INSERT INTO cp SELECT 400000 + i, ('x' || substr(md5('new' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 1500) i;
INSERT INTO cp SELECT 500000 + id, sh # '0000000000000101' FROM cp WHERE id BETWEEN 100000 AND 102000;
DELETE FROM cp WHERE id % 5 = 0;
UPDATE cp SET sh = sh # '8000000000000000' WHERE id % 7 = 0;
SELECT k, cp_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8]) k;
SELECT pending_rows > 0 AS pending FROM simhash_mih_check('cp_mih');
VACUUM cp;
SELECT c.pending_rows, s.runs FROM simhash_mih_check('cp_mih') c, simhash_mih_state('cp_mih') s;
SELECT k, cp_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8]) k;
SELECT cp_knn_mismatches();
SELECT simhash_mih_merge('cp_mih') > 0 AS merged;
SELECT c.pending_rows, c.sorted_rows = c.live_sorted_rows AS only_live, s.runs
FROM simhash_mih_check('cp_mih') c, simhash_mih_state('cp_mih') s;
SELECT k, cp_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8]) k;
SELECT cp_knn_mismatches();

-- The option is checked, and an existing index takes it at its next REINDEX.
CREATE INDEX ON cp USING simhash_mih (sh) WITH (compact = maybe);
ALTER INDEX cp_mih SET (compact = off);
REINDEX INDEX cp_mih;
SELECT k, cp_mismatches(k) FROM unnest(ARRAY[3, 5]) k;
