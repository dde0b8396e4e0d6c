-- Every bad input gets a clear error with the right SQLSTATE, never an internal error (XX000) or
-- a silently wrong answer: sources that write, lock or are not queries; fractional ids and
-- differences; distances outside 0..64; a heat map's title past its limit and counts near 2^64.
\i sql/include/try.sql
CREATE TABLE err_pages (id bigint, sh simhash);
INSERT INTO err_pages SELECT i, simhash(i::bigint * 2654435761) FROM generate_series(1, 50) i;

-- A source is read, never run for its effects.
SELECT pg_temp.try($$SELECT * FROM simhash_pairs('INSERT INTO err_pages VALUES (999, ''0'') RETURNING id, sh', 3)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs('WITH d AS (DELETE FROM err_pages WHERE id = 1 RETURNING id, sh) SELECT * FROM d', 3)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs('SELECT id, sh FROM err_pages FOR UPDATE', 3)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs('CREATE TABLE err_new AS SELECT 1', 3)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs('SELECT id, sh FROM err_pages; SELECT id, sh FROM err_pages', 3)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs('', 3)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_sample_pairs('UPDATE err_pages SET id = id RETURNING id', 3)$$);
SELECT count(*) AS rows_left_alone FROM err_pages;

-- An id column of a domain over bigint is a bigint; a numeric id is refused, not rounded.
CREATE DOMAIN err_page_id AS bigint CHECK (VALUE > 0);
SELECT count(*) AS pairs_with_domain_ids FROM simhash_pairs('SELECT id::err_page_id, sh FROM err_pages', 64);
SELECT pg_temp.try($$SELECT count(*) FROM simhash_pairs('SELECT id + 0.5, sh FROM err_pages', 3)$$);
SELECT pg_temp.try($$SELECT count(*) FROM simhash_sample_pairs('SELECT id + 0.5 FROM err_pages', 3)$$);
SELECT count(*) AS sampled_with_domain_ids FROM simhash_sample_pairs('SELECT id::err_page_id FROM err_pages', 3);

-- Differences are counts: 1.7 is refused, not counted in cell (2, 2).
SELECT pg_temp.try($$SELECT * FROM simhash_joint_histogram('SELECT 1.7, 2.2')$$);
SELECT * FROM simhash_joint_histogram('SELECT 2.0, 2::numeric');
SELECT pg_temp.try($$SELECT * FROM simhash_heatmap_svg('SELECT 1.5, 2, 3')$$);

-- simhash_distance is documented as 0..64.
SELECT pg_temp.try($$SELECT '-5'::simhash_distance$$);
SELECT pg_temp.try($$SELECT '100000'::simhash_distance$$);
SELECT pg_temp.try($$SELECT 'abc'::simhash_distance$$);
SELECT '0'::simhash_distance AS low, '64'::simhash_distance AS high;

-- The heat map: a title past its limit is refused (a 110 MB one once ended in an internal
-- error); counts adding up to 2^64 are printed as such, not wrapped to 0.
SELECT pg_temp.try(format($$SELECT simhash_heatmap_svg('SELECT 1, 1, 1', title => %L)$$, repeat('t', 1001)));
SELECT pg_temp.try(format($$SELECT simhash_heatmap_svg('SELECT 1, 1, 1', title => %L)$$, repeat('t', 110000000)));
SELECT simhash_heatmap_svg('SELECT 0, 0, 9223372036854775807 UNION ALL SELECT 1, 1, 9223372036854775807 UNION ALL SELECT 2, 2, 2')
       LIKE '%1.84e+10G pairs in 3 cells%' AS total_printed;
SELECT pg_temp.try($$SELECT simhash_heatmap_svg('SELECT 0, 0, 9223372036854775807 UNION ALL SELECT 0, 0, 9223372036854775807 UNION ALL SELECT 0, 0, 2')$$);
DROP TABLE err_pages;
DROP DOMAIN err_page_id;
