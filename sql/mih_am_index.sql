-- The simhash_mih access method (block-sorted tables) answers radius queries exactly as a
-- sequential scan does, through index scans and bitmap scans, for every block count and radius,
-- and after inserts (pending pages), deletes, updates and VACUUM.
-- Autovacuum off: a VACUUM writes the pending rows as a run, so it would change the state shown.
CREATE TABLE at (id int, sh simhash) WITH (autovacuum_enabled = off);
INSERT INTO at SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) i;
-- Clusters: a base and members a few bits away, so radius queries have many answers.
INSERT INTO at
SELECT 10000 + b * 100 + m,
       base # (CASE WHEN m % 3 = 0 THEN '0' ELSE ((1::bigint << (m * 7 % 64)) | (1::bigint << (m * 13 % 64)))::simhash END)
            # (CASE WHEN m % 4 = 1 THEN (1::bigint << (m % 64))::simhash ELSE '0' END)
FROM (SELECT b, ('x' || substr(md5('base' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(1, 100) b) bases,
     generate_series(1, 1 + (b % 20)) m;
-- Many rows sharing block values, so one block value spans several index pages.
INSERT INTO at SELECT 20000 + i, ('x' || lpad(to_hex(i), 16, '0'))::bit(64)::simhash FROM generate_series(1, 2000) i;
INSERT INTO at VALUES (99999, NULL);
ANALYZE at;
CREATE TABLE aq AS
SELECT sh AS q FROM at WHERE id % 97 = 0 AND sh IS NOT NULL
UNION ALL SELECT ('x' || substr(md5('q' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 20) i
UNION ALL SELECT '0000000000000400'::simhash;

-- am_mismatches(k): queries whose answer through the index (index scan, then bitmap scan)
-- differs from a sequential scan's.
CREATE FUNCTION am_mismatches(k int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a bigint[]; b bigint[]; c bigint[];
BEGIN
    FOR q_ IN SELECT q FROM aq LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO a FROM at WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = off;
        SELECT array_agg(id ORDER BY id) INTO c FROM at WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO b FROM at WHERE hamming(sh, q_) <= k;
        RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b OR c IS DISTINCT FROM b THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;

CREATE INDEX at_mih ON at USING simhash_mih (sh);
ANALYZE at;
-- Every radius spelling uses it, with the planner's own choice (this session has run no query
-- through the index yet).
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming(sh, '0123456789abcdef') <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming(sh, '0123456789abcdef') < 6;
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming('0123456789abcdef', sh) <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE 5 >= hamming(sh, '0123456789abcdef');
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming(sh, '0123456789abcdef') BETWEEN 0 AND 5;
-- Not an index spelling since 1.1: sh <-> q is a plain integer (what clients should see), so this
-- is PostgreSQL's own integer <=, a filter evaluated row by row (README, Querying).
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE sh <-> '0123456789abcdef' <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming_within(sh, '0123456789abcdef', 5);
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE sh <@ hamming_ball('0123456789abcdef', 5);
-- A radius covering most of the table is a sequential scan.
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming(sh, '0123456789abcdef') <= 40;
-- The built index is consistent: three tables of every non-null row, nothing pending.
SELECT * FROM simhash_mih_check('at_mih');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming(sh, '0123456789abcdef') <= 5;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming(sh, '0123456789abcdef') <= 5;
RESET enable_indexscan;
RESET enable_seqscan;
SELECT k, am_mismatches(k) FROM unnest(ARRAY[-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 20, 32, 64, 100]) k;
-- The answers are not trivially empty.
SELECT count(*) > 100 AS many_answers FROM aq, at WHERE hamming(at.sh, aq.q) <= 8;

-- Every allowed block count, and the limits of the option.
DO $$
DECLARE m int; bad bigint;
BEGIN
    FOR m IN 2..6 LOOP
        DROP INDEX at_mih;
        EXECUTE format('CREATE INDEX at_mih ON at USING simhash_mih (sh) WITH (blocks = %s)', m);
        PERFORM simhash_mih_check('at_mih');
        SELECT sum(am_mismatches(k)) INTO bad FROM unnest(ARRAY[0, 2, 3, 5, 8, 12, 64]) k;
        RAISE NOTICE 'blocks=%: % mismatches', m, bad;
    END LOOP;
END $$;
-- Probing deeper: on a table this small the index reads table 0 whole beyond a few probes, so
-- this one has 120,000 rows, enough for the cost rule to probe block levels up to 2 (radius 6 on
-- three tables probes levels 2, 1, 1; radius 8 on four, 2, 1, 1, 1; radius 12 on six, 2 and five 1s).
CREATE TABLE ap (id int, sh simhash);
INSERT INTO ap SELECT i, ('x' || substr(md5('p' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 120000) i;
INSERT INTO ap SELECT 200000 + id * 100 + m,
       sh # ((1::bigint << (m * 7 % 64)) | (1::bigint << (m * 11 % 64)) | (1::bigint << (m * 5 % 64)))::simhash
FROM ap, generate_series(1, 30) m WHERE id <= 40;
DO $$
DECLARE m int; k int; q_ simhash; a bigint[]; b bigint[]; bad int := 0;
BEGIN
    FOR m IN 3..6 LOOP
        IF m > 3 THEN DROP INDEX ap_mih; END IF;
        EXECUTE format('CREATE INDEX ap_mih ON ap USING simhash_mih (sh) WITH (blocks = %s)', m);
        FOR k IN 0..12 LOOP
            FOR q_ IN SELECT sh FROM ap WHERE id <= 4 OR id = 200000 + 2 * 100 + 3 LOOP
                SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
                SELECT array_agg(id ORDER BY id) INTO a FROM ap WHERE hamming(sh, q_) <= k;
                SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
                SELECT array_agg(id ORDER BY id) INTO b FROM ap WHERE hamming(sh, q_) <= k;
                RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
                IF a IS DISTINCT FROM b THEN bad := bad + 1; END IF;
            END LOOP;
        END LOOP;
    END LOOP;
    RAISE NOTICE 'probing deeper: % mismatches', bad;
END $$;
SELECT count(*) AS near_answers FROM ap a, ap b WHERE a.id <= 4 AND hamming(a.sh, b.sh) BETWEEN 1 AND 6;
DROP TABLE ap;
CREATE INDEX ON at USING simhash_mih (sh) WITH (blocks = 1);
CREATE INDEX ON at USING simhash_mih (sh) WITH (blocks = 7);
CREATE INDEX ON at USING simhash_mih (sh) WITH (tables = 3);
CREATE INDEX ON at USING simhash_mih (id);
CREATE INDEX ON at USING simhash_mih (sh, id);

-- After inserts (into the pending pages), deletes, updates and VACUUM, which writes the pending
-- rows as a new sorted run; simhash_mih_merge merges every run into one.
DROP INDEX at_mih;
CREATE INDEX at_mih ON at USING simhash_mih (sh);
INSERT INTO at SELECT 50000 + i, ('x' || substr(md5('new' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 1000) i;
INSERT INTO at SELECT 60000 + id, sh # '0000000000000101' FROM at WHERE id BETWEEN 10000 AND 10500;
DELETE FROM at WHERE id % 5 = 0;
UPDATE at SET sh = sh # '8000000000000000' WHERE id % 7 = 0;
SELECT sorted_rows, pending_rows, free_pages FROM simhash_mih_check('at_mih');
SELECT k, am_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;
VACUUM at;
-- Flushed: nothing pending, a second run, the pending pages free.
SELECT sorted_rows, live_sorted_rows, pending_rows, free_pages > 0 AS recycled FROM simhash_mih_check('at_mih');
SELECT runs, sorted_rows, pending_rows FROM simhash_mih_state('at_mih');
SELECT k, am_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;
-- Merged: one run of the live rows, the old pages free for the next merge.
SELECT simhash_mih_merge('at_mih');
SELECT c.sorted_rows, c.live_sorted_rows, c.pending_rows, s.runs FROM simhash_mih_check('at_mih') c, simhash_mih_state('at_mih') s;
SELECT k, am_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;
CREATE TEMP TABLE size_after_merge AS SELECT pages FROM simhash_mih_check('at_mih');
DELETE FROM at WHERE id % 3 = 0;
VACUUM at;
-- A few dead rows and no pending ones: VACUUM only clears their tids.
SELECT sorted_rows, live_sorted_rows, pending_rows FROM simhash_mih_check('at_mih');
INSERT INTO at SELECT 70000 + i, ('x' || substr(md5('newer' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 700) i;
-- Counted whole: a full pending page and the tail page (which the meta page counts once it fills).
SELECT s.pending_rows AS counted, c.pending_rows AS on_pages
FROM simhash_mih_state('at_mih') s, simhash_mih_check('at_mih') c;
SELECT k, am_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;
VACUUM at;
SELECT simhash_mih_merge('at_mih');
-- The second merge reuses the pages the first one freed: the index does not grow by a copy.
SELECT c.sorted_rows, c.pending_rows, c.pages <= s.pages + 5 AS reused
FROM simhash_mih_check('at_mih') c, size_after_merge s;
SELECT k, am_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;
REINDEX INDEX at_mih;
SELECT sorted_rows, live_sorted_rows, pending_rows FROM simhash_mih_check('at_mih');
SELECT k, am_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;
SELECT * FROM simhash_mih_check('at');

-- NULLs, an empty table, an index built empty and filled by inserts.
SELECT count(*) FROM at WHERE hamming(sh, NULL) <= 5;
SELECT count(*) FROM at WHERE sh <@ NULL::hamming_ball;
CREATE TABLE ae (sh simhash);
CREATE INDEX ae_mih ON ae USING simhash_mih (sh);
SET enable_seqscan = off;
SELECT count(*) FROM ae WHERE hamming(sh, '0') <= 5;
INSERT INTO ae SELECT ('x' || lpad(to_hex(i), 16, '0'))::bit(64)::simhash FROM generate_series(0, 2000) i;
INSERT INTO ae VALUES (NULL);
SELECT count(*) FROM ae WHERE hamming(sh, '0') <= 2;
SET enable_indexscan = off;
SELECT count(*) FROM ae WHERE hamming(sh, '0') <= 2;
RESET enable_indexscan;
RESET enable_seqscan;
SELECT count(*) FROM ae WHERE hamming(sh, '0') <= 2;
-- Rows on the pending chain's only page, its tail: counted, and VACUUM writes them as a run.
CREATE TABLE af (sh simhash);
CREATE INDEX af_mih ON af USING simhash_mih (sh);
INSERT INTO af SELECT ('x' || lpad(to_hex(i), 16, '0'))::bit(64)::simhash FROM generate_series(1, 10) i;
SELECT runs, pending_rows FROM simhash_mih_state('af_mih');
VACUUM af;
SELECT runs, sorted_rows, pending_rows FROM simhash_mih_state('af_mih');
DROP TABLE af;

-- A prepared query with parameters, generic plan.
PREPARE near(simhash, int) AS SELECT count(*) FROM at WHERE hamming(sh, $1) <= $2;
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) EXECUTE near('0123456789abcdef', 5);
CREATE TEMP TABLE prepared_counts AS SELECT q, k FROM aq, unnest(ARRAY[3, 5, 8]) k;
DO $$
DECLARE r record; a bigint; b bigint; bad int := 0;
BEGIN
    FOR r IN SELECT * FROM prepared_counts LOOP
        EXECUTE format('EXECUTE near(%L, %s)', r.q, r.k) INTO a;
        SELECT count(*) INTO b FROM at WHERE bit_count((sh::bigint # r.q::bigint)::bit(64)) <= r.k;
        IF a <> b THEN bad := bad + 1; END IF;
    END LOOP;
    RAISE NOTICE 'prepared mismatches: %', bad;
END $$;
RESET enable_seqscan;
RESET plan_cache_mode;

-- Two balls on one column: the answers are in both.
SET enable_seqscan = off;
SELECT count(*) FROM at WHERE sh <@ hamming_ball('0000000000000400', 6) AND sh <@ hamming_ball('0000000000000000', 2);
RESET enable_seqscan;
SELECT count(*) FROM at WHERE sh <@ hamming_ball('0000000000000400', 6) AND sh <@ hamming_ball('0000000000000000', 2);

-- The parameterized self-join uses it as the inner side of a nested loop: the planner's own choice.
EXPLAIN (COSTS OFF) SELECT count(*) FROM at a JOIN at b ON hamming(a.sh, b.sh) <= 3 AND a.id < b.id;
SELECT count(*) FROM at a JOIN at b ON hamming(a.sh, b.sh) <= 3 AND a.id < b.id;
SET enable_seqscan = off;
SELECT count(*) FROM at a JOIN at b ON hamming(a.sh, b.sh) <= 3 AND a.id < b.id;
RESET enable_seqscan;

-- With GiST on the same column, radius and nearest-neighbour queries still go to simhash_mih.
CREATE INDEX at_gist ON at USING gist (sh);
EXPLAIN (COSTS OFF) SELECT id FROM at WHERE hamming(sh, '0123456789abcdef') <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM at ORDER BY sh <-> '0123456789abcdef' LIMIT 3;
DROP INDEX at_gist;

-- An unlogged table (its index starts from the init fork) and TRUNCATE.
CREATE UNLOGGED TABLE au (sh simhash);
CREATE INDEX ON au USING simhash_mih (sh);
INSERT INTO au SELECT sh FROM at WHERE sh IS NOT NULL;
TRUNCATE au;
INSERT INTO au SELECT sh FROM at WHERE id < 100;
SET enable_seqscan = off;
SELECT count(*) FROM au WHERE hamming(sh, '0') <= 64;
RESET enable_seqscan;
-- Copies of one hash that only tables 1 and 2 reach: the query differs from them in 3 bits of
-- block 0 (the low 22 bits with 3 tables), and a radius-3 scan probes table 0 one bit deep. Each
-- copy is returned once, by radius and by distance (tables 1..m-1 hold each distinct hash once and
-- reach its rows through table 0), a dead copy not at all, pending and merged copies alike.
CREATE TABLE ad (id int, sh simhash);
INSERT INTO ad SELECT g, ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) g;
INSERT INTO ad SELECT 10000 + g, 'f0f0f0f0f0f0f0f0' FROM generate_series(1, 30) g;
CREATE INDEX ad_mih ON ad USING simhash_mih (sh) WITH (blocks = 3);
SET enable_seqscan = off;
SELECT count(*), count(DISTINCT id) FROM ad WHERE hamming(sh, 'f0f0f0f0f0f0f0f7') <= 3;
SELECT count(*) FILTER (WHERE id > 10000) AS copies, count(DISTINCT id) AS rows
FROM (SELECT id FROM ad ORDER BY sh <-> 'f0f0f0f0f0f0f0f7' LIMIT 40) n;
DELETE FROM ad WHERE id BETWEEN 10001 AND 10005;
VACUUM ad;
INSERT INTO ad SELECT 20000 + g, 'f0f0f0f0f0f0f0f0' FROM generate_series(1, 10) g;
SELECT count(*), count(DISTINCT id) FROM ad WHERE hamming(sh, 'f0f0f0f0f0f0f0f7') <= 3;
SELECT simhash_mih_merge('ad_mih') > 0 AS merged;
SELECT count(*), count(DISTINCT id) FROM ad WHERE hamming(sh, 'f0f0f0f0f0f0f0f7') <= 3;
SELECT count(*) FILTER (WHERE id > 10000) AS copies, count(DISTINCT id) AS rows
FROM (SELECT id FROM ad ORDER BY sh <-> 'f0f0f0f0f0f0f0f7' LIMIT 40) n;
RESET enable_seqscan;
SELECT blocks, sorted_rows, live_sorted_rows FROM simhash_mih_check('ad_mih');

DROP TABLE at, aq, ae, au, ad;
DROP FUNCTION am_mismatches(int);
