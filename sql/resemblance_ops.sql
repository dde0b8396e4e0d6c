-- The btree and hash operator classes of resemblance_sketch: DISTINCT, GROUP BY, UNION, ORDER BY,
-- hash and merge joins, unique and hash indexes. The order is that of the 64 bytes (unsigned, byte
-- 0 first), which is the order of the text form; it says nothing about resemblance.
\i sql/include/try.sql

CREATE TEMP TABLE rs AS
SELECT i, resemblance_sketch('page ' || (i % 7) || ' of site ' || (i % 3)) AS s FROM generate_series(1, 210) i;
CREATE TEMP TABLE rs_other AS
SELECT i, resemblance_sketch('page ' || i || ' of site 0') AS s FROM generate_series(0, 9) i;
ANALYZE rs;
ANALYZE rs_other;

-- 21 distinct pages, each 10 times; by sorting and by hashing.
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT DISTINCT s FROM rs;
SELECT count(*) AS distinct_sorted FROM (SELECT DISTINCT s FROM rs) x;
SELECT count(*) AS groups_sorted, min(n), max(n) FROM (SELECT s, count(*) AS n FROM rs GROUP BY s) x;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT s, count(*) FROM rs GROUP BY s;
SELECT count(*) AS distinct_hashed FROM (SELECT DISTINCT s FROM rs) x;
SELECT count(*) AS groups_hashed, min(n), max(n) FROM (SELECT s, count(*) AS n FROM rs GROUP BY s) x;
RESET enable_sort;

-- UNION (site 0's pages 0..6 are in both tables), INTERSECT, EXCEPT.
SELECT (SELECT count(*) FROM (SELECT s FROM rs UNION SELECT s FROM rs_other) x) AS union_count,
       (SELECT count(*) FROM (SELECT s FROM rs INTERSECT SELECT s FROM rs_other) x) AS intersect_count,
       (SELECT count(*) FROM (SELECT s FROM rs_other EXCEPT SELECT s FROM rs) x) AS except_count;

-- ORDER BY: the order of the text form (in the C collation), both ways.
SELECT array_agg(i ORDER BY s, i) = array_agg(i ORDER BY s::text COLLATE "C", i) AS ascending_is_text_order,
       array_agg(i ORDER BY s DESC, i) = array_agg(i ORDER BY s::text COLLATE "C" DESC, i) AS descending_is_text_order,
       array_agg(i ORDER BY s USING >, i) = array_agg(i ORDER BY s DESC, i) AS using_greater
FROM rs;

-- The operators agree with each other and with the support functions on every pair.
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.s < b.s) <> (resemblance_sketch_cmp(a.s, b.s) < 0)
                           OR (a.s <= b.s) <> (resemblance_sketch_cmp(a.s, b.s) <= 0)
                           OR (a.s = b.s) <> (resemblance_sketch_cmp(a.s, b.s) = 0)
                           OR (a.s <> b.s) <> (resemblance_sketch_cmp(a.s, b.s) <> 0)
                           OR (a.s >= b.s) <> (resemblance_sketch_cmp(a.s, b.s) >= 0)
                           OR (a.s > b.s) <> (resemblance_sketch_cmp(a.s, b.s) > 0)
                           OR resemblance_sketch_cmp(a.s, b.s) <> -resemblance_sketch_cmp(b.s, a.s)
                           OR (a.s < b.s) <> (a.s::text COLLATE "C" < b.s::text COLLATE "C")) AS inconsistent,
       count(*) FILTER (WHERE a.s = b.s AND (resemblance_sketch_hash(a.s) <> resemblance_sketch_hash(b.s)
                           OR resemblance_sketch_hash_extended(a.s, 7) <> resemblance_sketch_hash_extended(b.s, 7))) AS equal_but_hashed_apart,
       -- the seeded hash with seed 0 has the plain hash in its low 32 bits, as PostgreSQL requires
       count(*) FILTER (WHERE a.s = b.s AND (resemblance_sketch_hash_extended(a.s, 0) & 4294967295)
                                            <> (resemblance_sketch_hash(a.s)::bigint & 4294967295)) AS seed_0_differs
FROM (SELECT DISTINCT s FROM rs UNION ALL SELECT s FROM rs_other) a,
     (SELECT DISTINCT s FROM rs UNION ALL SELECT s FROM rs_other) b;

-- Hash join and merge join.
SET enable_nestloop = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM rs JOIN rs_other USING (s);
SELECT count(*) AS hash_joined FROM rs JOIN rs_other USING (s);
RESET enable_mergejoin;
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM rs JOIN rs_other USING (s);
SELECT count(*) AS merge_joined FROM rs JOIN rs_other USING (s);
RESET enable_hashjoin;
RESET enable_nestloop;

-- A unique index refuses a second copy of a sketch (23505); btree and hash indexes answer =.
CREATE TEMP TABLE rs_unique (s resemblance_sketch);
CREATE UNIQUE INDEX rs_unique_s ON rs_unique (s);
INSERT INTO rs_unique SELECT DISTINCT s FROM rs;
SELECT pg_temp.try($$INSERT INTO rs_unique SELECT s FROM rs_other WHERE i = 3$$);
CREATE INDEX rs_hash_s ON rs USING hash (s);
CREATE TEMP TABLE rs_top3_by_text AS
SELECT (array_agg(s::text ORDER BY s::text COLLATE "C" DESC))[1:3] AS top3 FROM rs_unique;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM rs_unique WHERE s = resemblance_sketch('page 3 of site 0'::text);
SELECT count(*) AS found_by_btree FROM rs_unique WHERE s = resemblance_sketch('page 3 of site 0'::text);
EXPLAIN (COSTS OFF) SELECT s FROM rs_unique ORDER BY s DESC LIMIT 3;
SELECT (SELECT array_agg(s::text) FROM (SELECT s FROM rs_unique ORDER BY s DESC LIMIT 3) y) = top3
       AS backward_through_btree FROM rs_top3_by_text;
SELECT count(*) AS ordered_through_btree FROM rs_unique WHERE s >= (SELECT s FROM rs_other ORDER BY s LIMIT 1);
EXPLAIN (COSTS OFF) SELECT * FROM rs WHERE s = resemblance_sketch('page 3 of site 0'::text);
SELECT count(*) AS found_by_hash FROM rs WHERE s = resemblance_sketch('page 3 of site 0'::text);
RESET enable_bitmapscan;
RESET enable_seqscan;

-- Both classes pass PostgreSQL's validation.
SELECT c.opcname, a.amname, amvalidate(c.oid) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE c.opcintype = 'resemblance_sketch'::regtype ORDER BY 1;
