-- "No two rows within k bits" as an exclusion constraint: EXCLUDE USING gist (hamming_ball(sh, k) WITH &&).
\i sql/include/try.sql

-- The operator: each center in the other ball (the smaller radius decides); commutative.
SELECT hamming_ball('0', 5) && hamming_ball('1f', 5) AS five_bits,
       hamming_ball('0', 5) && hamming_ball('3f', 5) AS six_bits,
       hamming_ball('0', 5) && hamming_ball('1f', 4) AS smaller_radius_decides,
       hamming_ball('1f', 4) && hamming_ball('0', 5) AS commuted,
       hamming_ball('0', -1) && hamming_ball('0', 5) AS empty_ball;

CREATE TABLE pages (id int, url text, sh simhash,
                    EXCLUDE USING gist (hamming_ball(sh, 5) WITH &&));
INSERT INTO pages VALUES (1, 'a', '0123456789abcdef'), (2, 'b', 'fedcba9876543210');
-- 5 bits from page 1: refused, naming both rows; 6 bits: accepted; NULL hashes are not compared.
SELECT pg_temp.try($$INSERT INTO pages VALUES (3, 'c', '0123456789abcdef'::simhash # '1f')$$);
SELECT pg_temp.try($$INSERT INTO pages VALUES (4, 'd', '0123456789abcdef'::simhash # '3f')$$);
SELECT pg_temp.try($$INSERT INTO pages VALUES (5, 'e', NULL), (6, 'f', NULL)$$);
-- ON CONFLICT DO NOTHING skips the near-duplicates, in one statement too.
INSERT INTO pages VALUES (7, 'g', '0123456789abcdef'::simhash # '1'),
                         (8, 'h', 'aaaaaaaaaaaaaaaa'),
                         (9, 'i', 'aaaaaaaaaaaaaaaa'::simhash # '3')
ON CONFLICT DO NOTHING;
SELECT id, url FROM pages ORDER BY id;
-- UPDATE is checked too.
SELECT pg_temp.try($$UPDATE pages SET sh = 'fedcba9876543211' WHERE id = 8$$);

-- Adding the rule to a table that breaks it fails and says which rows; fixing them lets it in.
CREATE TABLE crawl (id int, sh simhash);
INSERT INTO crawl SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) i;
INSERT INTO crawl VALUES (9001, ('x' || substr(md5('17'), 1, 16))::bit(64)::simhash # '101');
SELECT pg_temp.try($$ALTER TABLE crawl ADD CONSTRAINT crawl_no_near_duplicates EXCLUDE USING gist (hamming_ball(sh, 5) WITH &&)$$);
DELETE FROM crawl WHERE id = 9001;
ALTER TABLE crawl ADD CONSTRAINT crawl_no_near_duplicates EXCLUDE USING gist (hamming_ball(sh, 5) WITH &&);

-- The constraint's index answers && as a sequential scan does, for many queries and radii.
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM crawl WHERE hamming_ball(sh, 5) && hamming_ball('0123456789abcdef', 12);
CREATE TEMP TABLE by_index AS
SELECT r, q, array_agg(id ORDER BY id) AS ids
FROM generate_series(1, 40) q, unnest(ARRAY[3, 5, 8, 20]) r,
     LATERAL (SELECT id FROM crawl WHERE hamming_ball(sh, 5)
                  && hamming_ball(('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash # '7', r)) m
GROUP BY r, q;
RESET enable_seqscan; RESET enable_bitmapscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TEMP TABLE by_seq AS
SELECT r, q, array_agg(id ORDER BY id) AS ids
FROM generate_series(1, 40) q, unnest(ARRAY[3, 5, 8, 20]) r,
     LATERAL (SELECT id FROM crawl WHERE hamming_ball(sh, 5)
                  && hamming_ball(('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash # '7', r)) m
GROUP BY r, q;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM by_seq) AS matched_queries,
       (SELECT count(*) FROM (TABLE by_index EXCEPT TABLE by_seq) d) + (SELECT count(*) FROM (TABLE by_seq EXCEPT TABLE by_index) d) AS differ;
