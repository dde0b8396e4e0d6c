-- Ordering, btree/hash operator classes, bit operators.
\i sql/include/try.sql

-- Unsigned order: 8000... sorts above 7fff..., unlike the signed bigint.
SELECT h FROM (VALUES ('ffffffffffffffff'::simhash), ('0'), ('8000000000000000'), ('7fffffffffffffff'), ('1')) t(h)
ORDER BY h;
SELECT 'ff'::simhash < 'ffffffffffffffff', '8000000000000000'::simhash > '7fffffffffffffff',
       'a'::simhash = '0xA', 'a'::simhash <> 'b', 'b'::simhash >= 'b', 'b'::simhash <= 'a';

-- Sorting many values agrees with the text order (fixed width sorts like the number).
-- Seeded, so that a failure can be reproduced.
SELECT setseed(0.14) AS seeded \gset
CREATE TEMP TABLE r AS
SELECT i, simhash(((random() - 0.5) * 1.8e19)::numeric::bigint) AS h FROM generate_series(1, 5000) i;
SELECT count(*) AS misordered FROM (
    SELECT h, lag(h) OVER (ORDER BY h) AS prev FROM r) s
WHERE prev::text COLLATE "C" > h::text COLLATE "C";

-- btree: a unique index rejects a duplicate (23505), PRIMARY KEY works, index scans are used.
CREATE TEMP TABLE pages (id int, sh simhash PRIMARY KEY);
INSERT INTO pages VALUES (1, 'abc'), (2, 'def'), (3, '8000000000000000');
SELECT pg_temp.try($$INSERT INTO pages VALUES (4, '0xABC')$$);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM pages WHERE sh = 'def';
SELECT id FROM pages WHERE sh = 'def';
SELECT id FROM pages WHERE sh > '7fffffffffffffff';
RESET enable_seqscan;

-- GROUP BY / DISTINCT by hashing and by sorting give the same groups.
CREATE TEMP TABLE dup AS SELECT (i % 7)::bigint::simhash AS h FROM generate_series(1, 70) i;
SET enable_hashagg = on;
SELECT h, count(*) FROM dup GROUP BY h ORDER BY h;
SET enable_hashagg = off;
SELECT h, count(*) FROM dup GROUP BY h ORDER BY h;
RESET enable_hashagg;
SELECT count(DISTINCT h) FROM dup;

-- Hash join and merge join both work and agree.
CREATE TEMP TABLE a AS SELECT i, (i % 50)::bigint::simhash AS h FROM generate_series(1, 500) i;
CREATE TEMP TABLE b AS SELECT i, (i % 30)::bigint::simhash AS h FROM generate_series(1, 300) i;
ANALYZE a; ANALYZE b;
SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM a JOIN b USING (h);
SELECT count(*) FROM a JOIN b USING (h);
SET enable_mergejoin = on; SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM a JOIN b USING (h);
SELECT count(*) FROM a JOIN b USING (h);
RESET enable_mergejoin; RESET enable_hashjoin; RESET enable_nestloop;
-- The same count through bigint, as a reference.
SELECT count(*) FROM a JOIN b ON a.h::bigint = b.h::bigint;

-- A hash index works too.
CREATE INDEX ON a USING hash (h);
SET enable_seqscan = off;
SELECT count(*) FROM a WHERE h = '0x7';
RESET enable_seqscan;

-- Bit operators and popcount.
SELECT 'f0'::simhash # '0f' AS xor, 'f0'::simhash & '3c' AS "and", 'f0'::simhash | '0f' AS "or",
       ~'0'::simhash AS "not", ~'ffffffffffffffff'::simhash AS not_all;
SELECT popcount('0'), popcount('ffffffffffffffff'), popcount('8000000000000001'), popcount(NULL::simhash);
