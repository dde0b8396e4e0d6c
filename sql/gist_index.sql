-- The GiST index answers exactly what a sequential scan answers: radius queries for many radii
-- on random and clustered data, after every kind of change, and nearest neighbours.
CREATE TABLE g (id int, sh simhash);
-- random hashes ...
INSERT INTO g SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) i;
-- ... and clusters: 100 bases with 1..20 members each, 0..8 random bit flips from the base.
INSERT INTO g
SELECT 10000 + b * 100 + m,
       base # (CASE WHEN m % 3 = 0 THEN '0' ELSE ((1::bigint << (m * 7 % 64)) | (1::bigint << (m * 13 % 64)))::simhash END)
            # (CASE WHEN m % 4 = 1 THEN (1::bigint << (m % 64))::simhash ELSE '0' END)
FROM (SELECT b, ('x' || substr(md5('base' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(1, 100) b) bases,
     generate_series(1, 1 + (b % 20)) m;
INSERT INTO g VALUES (99999, NULL);
CREATE INDEX g_sh ON g USING gist (sh);
ANALYZE g;
CREATE TABLE queries AS
SELECT sh AS q FROM g WHERE id % 97 = 0 AND sh IS NOT NULL
UNION ALL SELECT ('x' || substr(md5('q' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 20) i;

-- mismatches(k): queries whose index answer differs from the sequential-scan answer.
CREATE FUNCTION mismatches(k int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a bigint[]; b bigint[];
BEGIN
    FOR q_ IN SELECT q FROM queries LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO a FROM g WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO b FROM g WHERE hamming(sh, q_) <= k;
        RESET enable_indexscan; RESET enable_seqscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;

-- The plan really uses the index under those settings.
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM g WHERE hamming(sh, '0') <= 5;
RESET enable_seqscan; RESET enable_bitmapscan;

SELECT k, mismatches(k) FROM unnest(ARRAY[-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 32, 64, 100]) k;
-- The radius queries found something to compare (not only empty answers).
SELECT count(*) > 1000 AS enough_close_pairs FROM g a JOIN g b ON hamming(a.sh, b.sh) <= 8 AND a.id < b.id;

-- After inserts, deletes, updates and VACUUM.
INSERT INTO g SELECT 50000 + i, ('x' || substr(md5('new' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 1000) i;
INSERT INTO g SELECT 60000 + id, sh # '0000000000000101' FROM g WHERE id BETWEEN 10000 AND 10500;
DELETE FROM g WHERE id % 5 = 0;
UPDATE g SET sh = sh # '8000000000000000' WHERE id % 7 = 0;
VACUUM g;
SELECT k, mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 10, 64]) k;

-- NULL query: no rows; NULL rows never match.
SELECT count(*) FROM g WHERE hamming(sh, NULL) <= 5;
SELECT count(*) FROM g WHERE sh <@ NULL::hamming_ball;

-- Nearest neighbours: the k-th distance from the index equals the true k-th distance.
CREATE FUNCTION knn_mismatches(n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE bad bigint := 0; q_ simhash; a int[]; b int[];
BEGIN
    FOR q_ IN SELECT q FROM queries LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off;
        SELECT array_agg(d) INTO a FROM (SELECT (sh <-> q_)::int AS d FROM g WHERE sh IS NOT NULL ORDER BY sh <-> q_ LIMIT n) s;
        RESET enable_seqscan; RESET enable_sort;
        SELECT array_agg(d ORDER BY d) INTO b FROM (SELECT hamming(sh, q_)::int AS d FROM g WHERE sh IS NOT NULL ORDER BY 1 LIMIT n) s;
        IF a IS DISTINCT FROM b THEN bad := bad + 1; END IF;
    END LOOP;
    RETURN bad;
END $$;
SET enable_seqscan = off; SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id FROM g ORDER BY sh <-> '0' LIMIT 10;
RESET enable_seqscan; RESET enable_sort;
SELECT n, knn_mismatches(n) FROM unnest(ARRAY[1, 10, 100]) n;

-- Index-only scan returns the hashes themselves.
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT sh FROM g WHERE sh <@ hamming_ball('0', 3);
SELECT count(*) = (SELECT count(*) FROM g WHERE hamming(sh, '0123456789abcdef') <= 20)
FROM (SELECT sh FROM g WHERE sh <@ hamming_ball('0123456789abcdef', 20)) s;
RESET enable_seqscan; RESET enable_bitmapscan;

-- Empty table, and an index built by inserts one at a time (no sorted build) answers the same.
CREATE TABLE e (sh simhash);
CREATE INDEX ON e USING gist (sh);
SELECT count(*) FROM e WHERE hamming(sh, '0') <= 64;
INSERT INTO e SELECT sh FROM g;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM e WHERE hamming(sh, '0123456789abcdef') <= 20;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT count(*) FROM g WHERE hamming(sh, '0123456789abcdef') <= 20;
DROP TABLE g, e, queries;
DROP FUNCTION mismatches(int), knn_mismatches(int);

-- Keys are prefixes of the hashes, and pages are cut along the prefix tree. Edge cases of both:
-- thousands of equal hashes (pages of identical keys, split by position), hashes with long runs of
-- trailing zeros (0, the 64 single bits: the prefix codes read from them are short), hashes that
-- share 63 bits, NULLs, and random ones; built sorted, by inserts one at a time, and by GiST's
-- buffering build (which unions leaf and inner keys without telling them apart).
CREATE TABLE d (id serial, sh simhash);
INSERT INTO d (sh) SELECT 'deadbeef00000000' FROM generate_series(1, 5000);
INSERT INTO d (sh) SELECT 'deadbeef00000001' FROM generate_series(1, 1500);
INSERT INTO d (sh) SELECT '0' FROM generate_series(1, 3000);
INSERT INTO d (sh) SELECT (1::bigint << (i % 64))::simhash FROM generate_series(1, 2000) i;
INSERT INTO d (sh) SELECT NULL FROM generate_series(1, 300);
INSERT INTO d (sh) SELECT ('x' || substr(md5('d' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 2000) i;
CREATE TABLE d_queries AS
SELECT q::simhash AS q FROM unnest(ARRAY['deadbeef00000000', 'deadbeef00000001', 'deadbeef00000003',
    '0', '1', '8000000000000000', 'ffffffffffffffff', '0123456789abcdef']) q
UNION ALL SELECT sh FROM d WHERE id % 997 = 0 AND sh IS NOT NULL;
CREATE TABLE d_inserted (LIKE d);
CREATE INDEX ON d_inserted USING gist (sh);
-- Seeded, so that a failure can be reproduced.
SELECT setseed(0.11) AS seeded \gset
INSERT INTO d_inserted SELECT * FROM d ORDER BY random();
CREATE TABLE d_buffered AS SELECT * FROM d ORDER BY random();
CREATE INDEX ON d_buffered USING gist (sh) WITH (buffering = on);
CREATE INDEX ON d USING gist (sh);
ANALYZE d, d_inserted, d_buffered;

-- Queries of d_queries whose index answer (radius k, or the n nearest distances) differs from the
-- sequential scan's, on table t.
CREATE FUNCTION edge_mismatches(t regclass, k int, n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE bad bigint := 0; q_ simhash; a int[]; b int[];
BEGIN
    FOR q_ IN SELECT q FROM d_queries LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off;
        EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %s WHERE hamming(sh, $1) <= $2', t) INTO a USING q_, k;
        EXECUTE format('SELECT array_agg(x) FROM (SELECT (sh <-> $1)::int AS x FROM %s WHERE sh IS NOT NULL ORDER BY sh <-> $1 LIMIT $2) s', t)
            INTO b USING q_, n;
        RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort;
        SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off;
        IF a IS DISTINCT FROM (SELECT array_agg(id ORDER BY id) FROM d WHERE hamming(sh, q_) <= k)
           OR b IS DISTINCT FROM (SELECT array_agg(x ORDER BY x) FROM (SELECT hamming(sh, q_)::int AS x FROM d
                                  WHERE sh IS NOT NULL ORDER BY 1 LIMIT n) s) THEN
            bad := bad + 1;
        END IF;
        RESET enable_indexscan; RESET enable_bitmapscan;
    END LOOP;
    RETURN bad;
END $$;
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM d_inserted WHERE hamming(sh, '0') <= 1;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT t, k, edge_mismatches(t, k, 100) FROM unnest(ARRAY['d', 'd_inserted', 'd_buffered']::regclass[]) t,
    unnest(ARRAY[0, 1, 2, 3, 8, 64]) k ORDER BY t::text, k;
-- The radius answers are not trivial: radius 0 around 'deadbeef00000000' is its 5000 copies only.
SELECT count(*) FROM d WHERE hamming(sh, 'deadbeef00000000') <= 0;
SELECT count(*) FROM d WHERE hamming(sh, 'deadbeef00000000') <= 1;
DROP TABLE d, d_inserted, d_buffered, d_queries;
DROP FUNCTION edge_mismatches(regclass, int, int);
