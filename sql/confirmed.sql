-- Confirmed duplicates: the resemblance sketch, resemblance(), and the confirmed jobs.
\i sql/include/try.sql

-- The definition is pinned: a changed sketch would change stored columns (a new version).
SELECT resemblance_sketch('the quick brown fox jumps over the lazy dog today'::text);
SELECT resemblance(resemblance_sketch('the quick brown fox jumps over the lazy dog today'::text),
                   resemblance_sketch('the quick brown fox jumps over the lazy cat today'::text));
-- 64 bytes a page; the HTML path reads the visible text; a page without words has every bit 0,
-- and two such pages are alike.
SELECT pg_column_size(resemblance_sketch('a b c d'::text)) AS bytes,
       resemblance_sketch_html('<p>The <b>quick</b> brown fox</p><script>x = 1</script>') =
       resemblance_sketch('the quick brown fox'::text) AS html_is_text,
       resemblance_sketch(''::text) = repeat('0', 128)::resemblance_sketch AS empty_is_zero,
       resemblance(resemblance_sketch('!!'::text), resemblance_sketch(''::text)) AS empty_alike,
       resemblance_sketch('A B C D'::text) <> resemblance_sketch('A B C D'::text, fold_case => false) AS options_apply;
-- Text and binary forms round-trip; malformed input is refused.
SELECT s::text::resemblance_sketch = s AS text_round_trip,
       length(resemblance_sketch_send(s)) AS binary_bytes,
       upper(s::text)::resemblance_sketch = s AS either_case
FROM (SELECT resemblance_sketch('one two three four'::text) AS s) x;
SELECT pg_temp.try($$SELECT repeat('0', 127)::resemblance_sketch$$);
SELECT pg_temp.try($$SELECT repeat('0', 129)::resemblance_sketch$$);
SELECT pg_temp.try($$SELECT (repeat('0', 127) || 'g')::resemblance_sketch$$);
SELECT pg_temp.try($$SELECT (repeat('0', 64) || ' ' || repeat('0', 64))::resemblance_sketch$$);
SELECT pg_temp.try($$SELECT ('  ' || repeat('0', 128) || E'\n')::resemblance_sketch$$);
SELECT pg_temp.try($$SELECT resemblance_sketch('x'::text, size => 0)$$);

-- A crawl: 40 families of pages, each a 150-word page and variants with 1..12 words changed,
-- in wide rows (the planner prefers an index on them).
CREATE TABLE confirm_pages (id bigint PRIMARY KEY, body text, filler text);
INSERT INTO confirm_pages
SELECT f * 100 + v,
       (SELECT string_agg(CASE WHEN v > 0 AND (w * 37 + v * 11) % 150 < v THEN 'edit' || v || '_' || w
                               ELSE 'fam' || f || 'w' || (w % (60 + f)) END, ' ' ORDER BY w)
        FROM generate_series(1, 150) w),
       repeat('x', 600)
FROM generate_series(1, 40) f, generate_series(0, 1 + f % 5) v;
ALTER TABLE confirm_pages ADD COLUMN sh simhash GENERATED ALWAYS AS (simhash(body)) STORED,
                          ADD COLUMN sk resemblance_sketch GENERATED ALWAYS AS (resemblance_sketch(body)) STORED;
ANALYZE confirm_pages;

-- The confirmed pairs are exactly simhash_pairs' pairs whose resemblance reaches the threshold,
-- with that resemblance.
CREATE TEMP TABLE expected_pairs AS
SELECT p.id_a, p.id_b, p.distance, resemblance(a.sk, b.sk) AS resemblance
FROM simhash_pairs('SELECT id, sh FROM confirm_pages', 5) p
JOIN confirm_pages a ON a.id = p.id_a JOIN confirm_pages b ON b.id = p.id_b;
SELECT m, (SELECT count(*) FROM expected_pairs) AS within_5_bits,
       (SELECT count(*) FROM expected_pairs WHERE resemblance >= m) AS confirmed,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, m)
                              EXCEPT ALL SELECT * FROM expected_pairs WHERE resemblance >= m) d) AS extra,
       (SELECT count(*) FROM (SELECT * FROM expected_pairs WHERE resemblance >= m
                              EXCEPT ALL SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, m)) d) AS missing
FROM (VALUES (0.0), (0.5), (0.87), (0.95), (1.0)) v(m);
-- The defaults are k = 7 and min_resemblance = 0.87: the same pairs as those given explicitly.
SELECT (SELECT count(*) FROM (
            (SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages')
             EXCEPT ALL SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 7, 0.87))
            UNION ALL
            (SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 7, 0.87)
             EXCEPT ALL SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages'))) d) AS differ_from_7_087,
       (SELECT count(*) FILTER (WHERE distance > 5)
        FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages')) AS beyond_5_bits,
       (SELECT count(*) FROM (
            SELECT * FROM simhash_clusters_confirmed('SELECT id, sh, sk FROM confirm_pages')
            EXCEPT ALL SELECT * FROM simhash_clusters_confirmed('SELECT id, sh, sk FROM confirm_pages', 7, 0.87)) d)
           AS clusters_differ;
-- Every confirmed pair is of one family; rows without a sketch are skipped, as rows without a hash.
SELECT count(*) FILTER (WHERE id_a / 100 <> id_b / 100) AS across_families, min(resemblance), max(resemblance)
FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 5);
SELECT count(*) AS pairs,
       count(*) = (SELECT count(*) FROM expected_pairs
                   WHERE resemblance >= 0.87 AND id_a % 100 <> 1 AND id_b % 100 <> 1) AS as_without_those_rows
FROM simhash_pairs_confirmed(
    'SELECT id, sh, CASE WHEN id % 100 <> 1 THEN sk END FROM confirm_pages UNION ALL SELECT 0, NULL, NULL', 5);

-- Confirmed clusters: the connected components of the confirmed pairs.
WITH RECURSIVE edges AS (
    SELECT id_a AS x, id_b AS y FROM expected_pairs WHERE resemblance >= 0.87
    UNION ALL SELECT id_b, id_a FROM expected_pairs WHERE resemblance >= 0.87),
reach(id, other) AS (
    SELECT x, x FROM edges UNION SELECT r.id, e.y FROM reach r JOIN edges e ON e.x = r.other),
components AS (SELECT id, min(other) AS cluster_id FROM reach GROUP BY id)
SELECT (SELECT count(*) FROM components) AS clustered_pages,
       (SELECT count(*) FROM (SELECT * FROM simhash_clusters_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, 0.87)
                              EXCEPT SELECT * FROM components) d) AS differ,
       (SELECT count(*) FROM simhash_clusters_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, 0.87, singletons => true))
           AS with_singletons;
-- min_resemblance 0 confirms every pair: the clusters of simhash_clusters.
SELECT count(*) AS differ FROM (
    SELECT * FROM simhash_clusters_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, 0)
    EXCEPT ALL SELECT * FROM simhash_clusters('SELECT id, sh FROM confirm_pages', 5)) d;

-- Errors: the threshold, the source's columns.
SELECT pg_temp.try($$SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, -0.1)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, 1.5)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk FROM confirm_pages', 5, 'NaN')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_clusters_confirmed('SELECT id, sh, sk FROM confirm_pages', 65)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs_confirmed('SELECT id, sh FROM confirm_pages')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, body FROM confirm_pages')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs_confirmed('SELECT id, sh, sk, 1 FROM confirm_pages')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_pairs_confirmed('SELECT 1, sh, sk FROM confirm_pages')$$);

-- The confirmed radius query: the index finds the candidates, resemblance() confirms them; the
-- planner picks the index on these wide rows, and its answer is the sequential scan's.
CREATE INDEX confirm_pages_mih ON confirm_pages USING simhash_mih (sh);
CREATE TEMP TABLE confirm_queries AS SELECT id, sh, sk FROM confirm_pages WHERE id % 3 = 0 AND sh IS NOT NULL;
EXPLAIN (COSTS OFF)
SELECT q.id AS qid, p.id, resemblance(p.sk, q.sk) AS r FROM confirm_queries q
CROSS JOIN LATERAL (SELECT * FROM confirm_pages p WHERE hamming(p.sh, q.sh) <= 5) p
WHERE resemblance(p.sk, q.sk) >= 0.87;
CREATE TEMP TABLE by_index AS
SELECT q.id AS qid, p.id, resemblance(p.sk, q.sk) AS r FROM confirm_queries q
CROSS JOIN LATERAL (SELECT * FROM confirm_pages p WHERE hamming(p.sh, q.sh) <= 5) p
WHERE resemblance(p.sk, q.sk) >= 0.87;
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TEMP TABLE by_scan AS
SELECT q.id AS qid, p.id, resemblance(p.sk, q.sk) AS r FROM confirm_queries q
CROSS JOIN LATERAL (SELECT * FROM confirm_pages p WHERE hamming(p.sh, q.sh) <= 5) p
WHERE resemblance(p.sk, q.sk) >= 0.87;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM by_index) AS answers,
       (SELECT count(*) FROM (SELECT * FROM by_index EXCEPT ALL SELECT * FROM by_scan) d) AS extra,
       (SELECT count(*) FROM (SELECT * FROM by_scan EXCEPT ALL SELECT * FROM by_index) d) AS missing;

DROP TABLE confirm_pages;
