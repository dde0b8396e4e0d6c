-- Nearest neighbours through the simhash_mih access method: ORDER BY sh <-> q returns rows in
-- nondecreasing distance, the same distances as a sequential scan and a sort, for LIMIT 1, 10,
-- 100 and the whole table (NULL hashes last), with every block count, with pending rows, after
-- deletes, VACUUM and a merge, with NULLs, an empty table, filters and parameters.
-- (enable_seqscan = off makes costs huge: without this, every query would be JIT-compiled.)
SET jit = off;
-- Autovacuum off: a VACUUM writes the pending rows as a run, so it would change the state shown.
CREATE TABLE kt (id int, cat int, sh simhash) WITH (autovacuum_enabled = off);
-- Random rows (enough that the scan probes more than one level before reading table 0 whole)...
INSERT INTO kt SELECT i, i % 7, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 60000) i;
-- ... clusters: a base and members a few bits away ...
INSERT INTO kt
SELECT 100000 + b * 100 + m, m % 7,
       base # (CASE WHEN m % 3 = 0 THEN '0' ELSE ((1::bigint << (m * 7 % 64)) | (1::bigint << (m * 13 % 64)))::simhash END)
            # (CASE WHEN m % 4 = 1 THEN (1::bigint << (m % 64))::simhash ELSE '0' END)
FROM (SELECT b, ('x' || substr(md5('base' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(1, 200) b) bases,
     generate_series(1, 1 + (b % 30)) m;
-- ... rows 1..16 bits from a base with the bits spread evenly over the 64, so over the blocks:
-- the hardest for pigeonhole, found only at the last level that can find them ...
INSERT INTO kt
SELECT 250000 + b * 100 + d, d % 7,
       base # (SELECT bit_or(1::bigint << ((i * 64 / d + b) % 64))::simhash FROM generate_series(0, d - 1) i)
FROM (SELECT b, ('x' || substr(md5('spread' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(0, 9) b) bases,
     generate_series(1, 16) d;
-- ... many rows sharing block values, exact duplicates (ties) and NULLs.
INSERT INTO kt SELECT 200000 + i, i % 7, ('x' || lpad(to_hex(i), 16, '0'))::bit(64)::simhash FROM generate_series(1, 2000) i;
INSERT INTO kt SELECT 300000 + i, 0, 'ffff0000ffff0000' FROM generate_series(1, 50) i;
INSERT INTO kt SELECT 400000 + i, i % 7, NULL FROM generate_series(1, 30) i;
CREATE TABLE kq AS
SELECT row_number() OVER () AS qid, q FROM (
SELECT sh AS q FROM kt WHERE id % 1999 = 0 AND sh IS NOT NULL
UNION ALL SELECT sh # '0000000000000005' FROM kt WHERE id BETWEEN 100100 AND 100112
UNION ALL SELECT ('x' || substr(md5('q' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 12) i
UNION ALL SELECT ('x' || substr(md5('spread' || b), 1, 16))::bit(64)::simhash FROM generate_series(0, 9) b
UNION ALL SELECT 'ffff0000ffff0001'::simhash UNION ALL SELECT '0000000000000000'::simhash) s;
ANALYZE kt, kq;

-- knn_mismatches(lim, filter): queries whose distances, in the order the index scan returns
-- them, differ from those of a sequential scan and a sort (LIMIT NULL: the whole table, for every
-- fifth query). An index returning rows out of order, missing or repeating one, fails it.
CREATE FUNCTION knn_mismatches(lim int, filter text DEFAULT 'true') RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a int[]; b int[]; sql text;
BEGIN
    sql := format('SELECT array_agg(d) FROM (SELECT (sh <-> $1)::int AS d FROM kt WHERE %s ORDER BY sh <-> $1 LIMIT $2) s', filter);
    FOR q_ IN SELECT q FROM kq WHERE lim IS NOT NULL OR qid % 5 = 0 LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off;
        EXECUTE sql INTO a USING q_, lim;
        RESET enable_seqscan; RESET enable_sort; SET LOCAL enable_indexscan = off;
        EXECUTE sql INTO b USING q_, lim;
        RESET enable_indexscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;
-- The same rows, not only the same distances: no row twice, none missing.
CREATE FUNCTION knn_all_rows(q_ simhash) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a int[]; b int[];
BEGIN
    SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off;
    SELECT array_agg(id) INTO a FROM (SELECT id FROM kt ORDER BY sh <-> q_) s;
    RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort;
    SELECT array_agg(id ORDER BY id) INTO b FROM kt;
    RETURN (SELECT array_agg(x ORDER BY x) FROM unnest(a) x) = b;
END $$;

CREATE INDEX kt_mih ON kt USING simhash_mih (sh);
ANALYZE kt;
-- The planner's own choice, with and without a filter on another column, and with a parameter.
EXPLAIN (COSTS OFF) SELECT id FROM kt ORDER BY sh <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM kt WHERE cat = 3 ORDER BY sh <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM kt ORDER BY '0123456789abcdef' <-> sh LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id, sh <-> '0123456789abcdef' FROM kt ORDER BY sh <-> '0123456789abcdef' LIMIT 100;
PREPARE nn(simhash, int) AS SELECT id FROM kt ORDER BY sh <-> $1 LIMIT $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE nn('0123456789abcdef', 10);
RESET plan_cache_mode;
-- A radius and an order together: both go to the index.
EXPLAIN (COSTS OFF) SELECT id FROM kt WHERE hamming(sh, '0123456789abcdef') <= 20 ORDER BY sh <-> '0123456789abcdef' LIMIT 10;
-- The query form knn_mismatches runs, in its settings.
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT (sh <-> '0123456789abcdef')::int FROM kt WHERE true ORDER BY sh <-> '0123456789abcdef' LIMIT NULL;
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort;

SELECT lim, knn_mismatches(lim) FROM unnest(ARRAY[1, 10, 100, NULL]) lim;
SELECT knn_mismatches(10, 'cat = 3') AS filtered_10, knn_mismatches(NULL, 'cat = 3') AS filtered_all,
       knn_mismatches(10, 'hamming(sh, $1) <= 12') AS within_12_10,
       knn_mismatches(NULL, 'sh <@ hamming_ball($1, 20)') AS within_20_all;
SELECT count(*) FILTER (WHERE NOT knn_all_rows(q)) AS wrong_rows FROM (SELECT q FROM kq LIMIT 5) s;
-- The answers are not trivial: near neighbours exist, ties too, and NULLs come last.
SELECT count(*) > 50 AS near FROM kq, kt WHERE hamming(kt.sh, kq.q) <= 3;
SET enable_seqscan = off; SET enable_sort = off;
SELECT id, sh <-> 'ffff0000ffff0001' AS d FROM kt ORDER BY sh <-> 'ffff0000ffff0001' LIMIT 3;
SELECT count(*) FILTER (WHERE d IS NULL) AS nulls,
       min(n) FILTER (WHERE d IS NULL) > max(n) FILTER (WHERE d IS NOT NULL) AS nulls_last
FROM (SELECT sh <-> '0' AS d, row_number() OVER () AS n FROM (SELECT sh FROM kt ORDER BY sh <-> '0') s) t;
-- Two orders: the first from the index, the second sorted by the executor.
SELECT array_agg(id) = (SELECT array_agg(id) FROM (SELECT id FROM kt ORDER BY sh <-> '0123456789abcdef', sh <-> '0', id LIMIT 20) s2)
FROM (SELECT id FROM kt ORDER BY sh <-> '0123456789abcdef', sh <-> '0', id LIMIT 20) s;
RESET enable_seqscan; RESET enable_sort;
-- A NULL query: every distance is NULL, every row comes back once.
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off; SET enable_sort = off;
CREATE TEMP TABLE null_query AS SELECT id FROM kt ORDER BY sh <-> (SELECT NULL::simhash) LIMIT 100000;
EXECUTE nn(NULL, 5);
RESET enable_seqscan; RESET enable_sort;
RESET plan_cache_mode;
SELECT count(*), count(DISTINCT id) FROM null_query;

-- Every allowed block count, and a small work_mem (many passes, the buffer at its cap).
DO $$
DECLARE m int; bad bigint;
BEGIN
    FOR m IN 2..6 LOOP
        DROP INDEX kt_mih;
        EXECUTE format('CREATE INDEX kt_mih ON kt USING simhash_mih (sh) WITH (blocks = %s)', m);
        SELECT sum(knn_mismatches(lim)) INTO bad FROM unnest(ARRAY[1, 10, 100, NULL]) lim;
        RAISE NOTICE 'blocks=%: % mismatches', m, bad;
    END LOOP;
END $$;
SET work_mem = 64;
SELECT knn_mismatches(NULL) AS small_work_mem;
RESET work_mem;

-- Pending rows (and NULLs among them), then deletes and VACUUM, then a merge.
DROP INDEX kt_mih;
CREATE INDEX kt_mih ON kt USING simhash_mih (sh);
INSERT INTO kt SELECT 500000 + id, cat, sh # '0000000000010001' FROM kt WHERE id BETWEEN 100000 AND 101000;
INSERT INTO kt SELECT 600000 + i, 1, ('x' || substr(md5('new' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 300) i;
INSERT INTO kt SELECT 700000 + i, 2, NULL FROM generate_series(1, 10) i;
SELECT pending_rows > 0 AS pending FROM simhash_mih_check('kt_mih');
SELECT lim, knn_mismatches(lim) FROM unnest(ARRAY[1, 10, 100, NULL]) lim;
DELETE FROM kt WHERE id % 5 = 0;
VACUUM kt;
-- VACUUM writes the pending rows as a second run; dead rows lose their tids in the first one.
SELECT c.pending_rows, c.live_sorted_rows < c.sorted_rows AS dead_in_tables, s.runs
FROM simhash_mih_check('kt_mih') c, simhash_mih_state('kt_mih') s;
SELECT lim, knn_mismatches(lim) FROM unnest(ARRAY[1, 10, 100, NULL]) lim;
UPDATE kt SET sh = sh # '8000000000000000' WHERE id % 7 = 0;
INSERT INTO kt SELECT 900000 + i, 3, NULL FROM generate_series(1, 5) i;
VACUUM kt;
SELECT pending_rows AS merged_pending FROM simhash_mih_check('kt_mih');
SELECT lim, knn_mismatches(lim) FROM unnest(ARRAY[1, 10, 100, NULL]) lim;
SELECT count(*) FILTER (WHERE NOT knn_all_rows(q)) AS wrong_rows FROM (SELECT q FROM kq LIMIT 3) s;

-- With GiST on the same column, nearest neighbours go to simhash_mih.
CREATE INDEX kt_gist ON kt USING gist (sh);
EXPLAIN (COSTS OFF) SELECT id FROM kt ORDER BY sh <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM kt WHERE cat = 3 ORDER BY sh <-> '0123456789abcdef' LIMIT 10;
DROP INDEX kt_gist;

-- An empty table, an index built empty and filled by inserts, a table of NULLs only.
CREATE TABLE ke (id int, sh simhash);
CREATE INDEX ke_mih ON ke USING simhash_mih (sh);
SET enable_seqscan = off; SET enable_sort = off;
SELECT id FROM ke ORDER BY sh <-> '0' LIMIT 10;
INSERT INTO ke SELECT i, ('x' || lpad(to_hex(i), 16, '0'))::bit(64)::simhash FROM generate_series(0, 40) i;
INSERT INTO ke VALUES (-1, NULL);
SELECT string_agg(id::text || ':' || coalesce((sh <-> '0')::text, 'null'), ' ') FROM (SELECT id, sh FROM ke ORDER BY sh <-> '0', id) s;
CREATE TABLE kn (sh simhash);
INSERT INTO kn SELECT NULL FROM generate_series(1, 3);
CREATE INDEX ON kn USING simhash_mih (sh);
SELECT count(*) FROM (SELECT sh FROM kn ORDER BY sh <-> '0') s;
RESET enable_seqscan; RESET enable_sort;

-- More equal rows than work_mem can hold: the scan leaves the levels for passes, which keep
-- a bounded number of rows each. (The order is checked by scan position n: from PostgreSQL 16 on,
-- count(DISTINCT id) may sort the aggregate's input by id.)
CREATE TABLE kd (id int, sh simhash);
INSERT INTO kd SELECT i, CASE WHEN i <= 6000 THEN '00000000ffffffff'
                              ELSE ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash END
FROM generate_series(1, 8000) i;
CREATE INDEX ON kd USING simhash_mih (sh);
SET work_mem = 64; SET enable_seqscan = off; SET enable_sort = off;
SELECT count(*) AS n, count(DISTINCT id) AS distinct_ids,
       array_agg(d ORDER BY n) = array_agg(d ORDER BY d) AS ordered, max(d) FILTER (WHERE n <= 6000) AS d_6000
FROM (SELECT id, (sh <-> '00000000ffffffff')::int AS d, row_number() OVER () AS n
      FROM (SELECT id, sh FROM kd ORDER BY sh <-> '00000000ffffffff') s) t;
RESET work_mem; RESET enable_seqscan; RESET enable_sort;
-- The same table at the default work_mem: the levels find the rows, a level's block values are
-- probed in one batch (several to a page, the 6,000 entries of one value across pages). The
-- index returns ties in tid order, which is id order here: the same ids as a sort by (d, id).
CREATE FUNCTION kd_mismatch(q simhash) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE a int[]; b int[];
BEGIN
    SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off;
    SELECT array_agg(id) INTO a FROM (SELECT id FROM kd ORDER BY sh <-> q LIMIT 6100) s;
    RESET enable_seqscan; RESET enable_sort; SET LOCAL enable_indexscan = off;
    SELECT array_agg(id) INTO b FROM (SELECT id FROM kd ORDER BY sh <-> q, id LIMIT 6100) s;
    RESET enable_indexscan; RESET enable_bitmapscan;
    RETURN a IS DISTINCT FROM b;
END $$;
SELECT q, kd_mismatch(q::simhash) AS mismatch
FROM unnest(ARRAY['00000000ffffffff', '00000000fffffffe', '00000000bfffffff', '40000000ffffffff',
                  '00000100fffffeff', '0123456789abcdef']) q;

-- A cursor reads on past the first batches.
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off;
DECLARE c CURSOR FOR SELECT (sh <-> '0123456789abcdef')::int AS d FROM kt ORDER BY sh <-> '0123456789abcdef';
MOVE FORWARD 5000 IN c;
FETCH 3 FROM c;
COMMIT;
DROP TABLE kt, kq, ke, kn, kd, null_query;
DROP FUNCTION knn_mismatches(int, text), knn_all_rows(simhash), kd_mismatch(simhash);
