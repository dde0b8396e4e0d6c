-- Choosing the threshold: sampling, the joint histogram, quadrants, the sweep, exact enumeration
-- and the heat map, on hand-computed cases.
\i sql/include/try.sql

-- Nine pairs: (fingerprint difference, simhash difference).
CREATE TABLE analysis_diffs (fp_diff int, sh_diff int);
INSERT INTO analysis_diffs VALUES (0, 0), (0, 0), (0, 0), (2, 3), (10, 2), (4, 9), (50, 30), (50, 30), (128, 64);

SELECT * FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM analysis_diffs');
-- At d = 6, k = 5: both 4, simhash only 1 (10, 2), fingerprints only 1 (4, 9), neither 3;
-- with 100 pairs in all, the 91 not listed are "neither" too.
SELECT * FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM analysis_diffs');
SELECT quadrant, pairs FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM analysis_diffs', total_pairs => 100);
SELECT quadrant, pairs FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM analysis_diffs', d => 0, k => 64);
-- The sweep: (10, 2) is the only flagged pair fingerprints call different, from k = 2 on, so the
-- largest k with none is 1; allowing one such pair, it is 10.
SELECT * FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM analysis_diffs');
SELECT k FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM analysis_diffs', allowed => 1) WHERE recommended;

-- Bad input.
SELECT pg_temp.try($$SELECT * FROM simhash_joint_histogram('SELECT 129, 0')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_joint_histogram('SELECT 0, -1')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_joint_histogram('SELECT NULL::int, 3')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM analysis_diffs', d => 129)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM analysis_diffs', k => -1)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM analysis_diffs', total_pairs => 5)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM analysis_diffs', max_k => 65)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM analysis_diffs', allowed => -1)$$);
-- An empty source is a valid, empty analysis.
SELECT count(*) AS cells FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM analysis_diffs WHERE false');
SELECT sum(pairs) AS pairs FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM analysis_diffs WHERE false');

-- Sampling: reproducible with a seed, different with another, and uniform (chi-square, 44
-- degrees of freedom, critical value 78.7 at p = 0.001, over 45,000 draws of the 45 pairs of 10 rows).
CREATE TABLE analysis_ten AS SELECT i::bigint AS id, CASE WHEN i <= 4 THEN 'a' WHEN i <= 7 THEN 'b' ELSE 'c' || i END AS crawl
FROM generate_series(1, 10) i;
SELECT (SELECT array_agg(p ORDER BY p) FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 50, 7) p)
     = (SELECT array_agg(p ORDER BY p) FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 50, 7) p) AS same_seed_same_pairs,
       (SELECT array_agg(p ORDER BY p) FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 50, 7) p)
     <> (SELECT array_agg(p ORDER BY p) FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 50, 8) p) AS other_seed_other_pairs;
-- The seed fixes the sample for a set of rows, whatever order the source returns them in.
CREATE TABLE analysis_ten_reversed AS SELECT * FROM analysis_ten ORDER BY id DESC;
SELECT (SELECT array_agg(p) FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 50, 7) p)
     = (SELECT array_agg(p) FROM simhash_sample_pairs('SELECT id FROM analysis_ten_reversed', 50, 7) p) AS order_free,
       (SELECT array_agg(p) FROM simhash_sample_pairs('SELECT id, crawl FROM analysis_ten', 50, 7, true) p)
     = (SELECT array_agg(p) FROM simhash_sample_pairs('SELECT id, crawl FROM analysis_ten_reversed', 50, 7, true) p) AS order_free_within_groups;
SELECT count(*) AS draws, count(DISTINCT (id_a, id_b)) AS distinct_pairs, bool_and(id_a < id_b) AS ordered,
       bool_and(id_a BETWEEN 1 AND 10 AND id_b BETWEEN 1 AND 10) AS known_ids
FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 45000, 42);
SELECT sum((n - 1000.0) ^ 2 / 1000.0) < 78.7 AS uniform
FROM (SELECT count(*) AS n FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 45000, 42) GROUP BY id_a, id_b) c;
-- Within groups: only same-crawl pairs (6 in a, 3 in b, none in the single-page crawls), uniform
-- over those 9 (8 degrees of freedom, critical value 26.1).
SELECT count(DISTINCT (s.id_a, s.id_b)) AS distinct_pairs, bool_and(a.crawl = b.crawl) AS same_crawl,
       sum(1) FILTER (WHERE a.crawl = 'a') AS in_a, sum(1) FILTER (WHERE a.crawl = 'b') AS in_b
FROM simhash_sample_pairs('SELECT id, crawl FROM analysis_ten', 9000, 1, within_group => true) s
JOIN analysis_ten a ON a.id = s.id_a JOIN analysis_ten b ON b.id = s.id_b;
SELECT sum((n - 1000.0) ^ 2 / 1000.0) < 26.1 AS uniform_within_groups
FROM (SELECT count(*) AS n FROM simhash_sample_pairs('SELECT id, crawl FROM analysis_ten', 9000, 1, true) GROUP BY id_a, id_b) c;
SELECT pg_temp.try($$SELECT * FROM simhash_sample_pairs('SELECT id FROM analysis_ten', -1)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_sample_pairs('SELECT id FROM analysis_ten', 0)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_sample_pairs('SELECT id FROM analysis_ten WHERE id = 1', 10)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_sample_pairs('SELECT id, crawl FROM analysis_ten WHERE id > 7', 10, 0, true)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_sample_pairs('SELECT 1 UNION ALL SELECT 1', 10)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_sample_pairs('SELECT ''x''', 10)$$);

-- Exact enumeration: every pair within either threshold, equal to brute force over all pairs.
CREATE FUNCTION pg_temp.fp(seed int, changed int[]) RETURNS fingerprints LANGUAGE sql AS $$
    SELECT fingerprints(array_agg(CASE WHEN i = ANY (changed) THEN -(1000 * seed + i) ELSE 1000 * seed + i END
                                  ORDER BY i)::bigint[])
    FROM generate_series(1, 128) i $$;
CREATE TABLE analysis_crawl AS
SELECT c * 100 + m AS id,
       ((hashint8(c) & x'7fffffffffffffff'::bigint) # (CASE WHEN m > 1 THEN 1::bigint << (hashint4(c * 10 + m) & 63) ELSE 0 END)
                   # (CASE WHEN m > 3 THEN 1::bigint << (hashint4(c * 20 + m) & 63) ELSE 0 END)
                   # (CASE WHEN m > 5 THEN (hashint4(c * 30 + m) & 4095)::bigint ELSE 0 END))::simhash AS sh,
       pg_temp.fp(c, ARRAY(SELECT 1 + (hashint4(c * 1000 + m * 10 + j) & 127)
                           FROM generate_series(1, (hashint4(c * 100 + m) & 15)) j)) AS fp
FROM generate_series(1, 30) c, generate_series(1, 8) m;
CREATE TEMP TABLE exact AS SELECT * FROM simhash_threshold_pairs('SELECT id, sh, fp FROM analysis_crawl', 5, 6);
CREATE TEMP TABLE brute AS
SELECT a.id AS id_a, b.id AS id_b, fingerprint_diff(a.fp, b.fp) AS fp_diff, hamming(a.sh, b.sh)::int AS sh_diff
FROM analysis_crawl a JOIN analysis_crawl b ON a.id < b.id
WHERE hamming(a.sh, b.sh) <= 5 OR fingerprint_diff(a.fp, b.fp) <= 6;
SELECT (SELECT count(*) FROM exact) AS pairs,
       NOT EXISTS (SELECT * FROM exact EXCEPT SELECT * FROM brute)
       AND NOT EXISTS (SELECT * FROM brute EXCEPT SELECT * FROM exact) AS same_as_brute_force;
SELECT quadrant, pairs FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM exact',
                                              total_pairs => (SELECT count(*) * (count(*) - 1) / 2 FROM analysis_crawl));
SELECT pg_temp.try($$SELECT * FROM simhash_threshold_pairs('SELECT id, sh, fp FROM analysis_crawl', 65)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_threshold_pairs('SELECT id, sh, fp FROM analysis_crawl', 5, 128)$$);

-- The heat map: one coloured cell per histogram cell, well-formed XML, both scales.
CREATE TABLE analysis_hist AS SELECT * FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM analysis_diffs');
SELECT xml_is_well_formed_document(svg) AS well_formed,
       (length(svg) - length(replace(svg, 'pairs</title></rect>', ''))) / length('pairs</title></rect>') AS cells,
       svg LIKE '%logarithmic scale%' AS log_scale,
       svg LIKE '%fingerprints: duplicate if &lt;= 6%' AND svg LIKE '%simhash: duplicate if &lt;= 5%' AS threshold_lines
FROM simhash_heatmap_svg('SELECT * FROM analysis_hist') svg;
SELECT svg LIKE '%linear scale%' AS linear_scale, svg LIKE '%duplicate if &lt;= 3%' AS other_threshold,
       svg LIKE '%<title>my &lt;crawl&gt;</title>%' AS escaped_title
FROM simhash_heatmap_svg('SELECT * FROM analysis_hist', 'linear', 6, 3, 'my <crawl>') svg;
SELECT xml_is_well_formed_document(simhash_heatmap_svg('SELECT * FROM analysis_hist WHERE false')) AS empty_ok;
SELECT pg_temp.try($$SELECT simhash_heatmap_svg('SELECT * FROM analysis_hist', 'cubic')$$);
SELECT pg_temp.try($$SELECT simhash_heatmap_svg('SELECT 129, 0, 5')$$);
SELECT pg_temp.try($$SELECT simhash_heatmap_svg('SELECT 1, 1, -5')$$);
SELECT pg_temp.try($$SELECT simhash_heatmap_svg('SELECT 1, NULL::int, 5')$$);
SELECT pg_temp.try($$SELECT simhash_heatmap_svg('SELECT * FROM analysis_hist', 'log', 6, 65)$$);

-- Sources of the PL/pgSQL functions are checked as the C functions check theirs: one SELECT that
-- only reads (a row lock, even in a subquery, and a second statement are refused before running).
SELECT pg_temp.try($$SELECT * FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM analysis_diffs FOR UPDATE')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_quadrants('SELECT * FROM (SELECT fp_diff, sh_diff FROM analysis_diffs FOR SHARE) s')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_threshold_sweep('SELECT 1, 1; SELECT 2, 2')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_joint_histogram('DELETE FROM analysis_diffs RETURNING fp_diff, sh_diff')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_confirmed_histogram('WITH d AS (DELETE FROM analysis_diffs RETURNING *) SELECT fp_diff, sh_diff, 1.0 FROM d')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_heatmap_svg('SELECT fp_diff, sh_diff, 1 FROM analysis_diffs FOR UPDATE')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs('SELECT * FROM (SELECT fp_diff, sh_diff::bigint FROM analysis_diffs FOR UPDATE) s')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_check_source('SHOW search_path')$$);
SELECT count(*) AS rows_kept FROM analysis_diffs;

DROP TABLE analysis_diffs, analysis_ten, analysis_ten_reversed, analysis_crawl, analysis_hist;

