-- The crawl report over the table "pages" loaded by demo/load_pages.sql.
\pset footer off
\timing off
\echo
\echo '=== fingerprinting: simhash of every page''s visible text'
\timing on
ALTER TABLE pages ADD COLUMN sh simhash;
UPDATE pages SET sh = simhash_html(html);
\timing off
CREATE INDEX pages_sh_mih ON pages USING gin (sh simhash_mih_ops);
ANALYZE pages;

\echo
\echo '=== crawl report ==='
SELECT package, count(*) AS pages, pg_size_pretty(sum(octet_length(html))::bigint) AS html
FROM pages GROUP BY package ORDER BY package;

\echo '--- exact duplicates (the same simhash)'
SELECT count(*) AS duplicate_groups, sum(n) AS pages_in_them
FROM (SELECT count(*) AS n FROM pages GROUP BY sh HAVING count(*) > 1) g;
SELECT n AS copies, urls[1] AS example, urls[2] AS same_as
FROM (SELECT count(*) AS n, array_agg(url ORDER BY url) AS urls FROM pages GROUP BY sh HAVING count(*) > 1) g
ORDER BY n DESC, example LIMIT 5;

\echo '--- near-duplicate pairs (Hamming distance 1..5), through the index'
\timing on
CREATE TEMP TABLE near AS
SELECT a.id AS id_a, b.id AS id_b, hamming(a.sh, b.sh) AS distance
FROM pages a JOIN pages b ON hamming(a.sh, b.sh) <= 5 AND a.id < b.id;
\timing off
SELECT distance, count(*) AS pairs FROM near GROUP BY distance ORDER BY distance;
\echo '--- examples side by side'
SELECT n.distance, a.url AS page, b.url AS near_duplicate
FROM near n JOIN pages a ON a.id = n.id_a JOIN pages b ON b.id = n.id_b
WHERE n.distance > 0
ORDER BY n.distance DESC, a.url LIMIT 8;
\echo '--- the pages with the most near-duplicates'
SELECT p.url, count(*) AS near_duplicates
FROM (SELECT id_a AS id FROM near UNION ALL SELECT id_b FROM near) x JOIN pages p USING (id)
GROUP BY p.url ORDER BY near_duplicates DESC, p.url LIMIT 5;
