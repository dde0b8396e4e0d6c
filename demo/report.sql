-- The crawl report over the table "pages" loaded by demo/load_pages.sql.
\pset footer off
\timing off
\echo
\echo '=== fingerprinting: simhash of every page''s visible text'
\timing on
ALTER TABLE pages ADD COLUMN sh simhash;
UPDATE pages SET sh = simhash_html(html);
\timing off
CREATE INDEX pages_sh_mih ON pages USING simhash_mih (sh);
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

\echo '--- near-duplicate pairs (Hamming distance 1..5): simhash_pairs over the whole crawl'
\timing on
CREATE TEMP TABLE near AS SELECT * FROM simhash_pairs('SELECT id, sh FROM pages', 5);
\timing off
SELECT distance, count(*) AS pairs FROM near GROUP BY distance ORDER BY distance;
\echo '--- examples side by side'
SELECT n.distance, a.url AS page, b.url AS near_duplicate
FROM near n JOIN pages a ON a.id = n.id_a JOIN pages b ON b.id = n.id_b
WHERE n.distance > 0
ORDER BY n.distance DESC, a.url LIMIT 8;

\echo '--- duplicate clusters (pages linked by chains of pairs within 5 bits): simhash_clusters'
\timing on
CREATE TEMP TABLE clusters AS SELECT * FROM simhash_clusters('SELECT id, sh FROM pages', 5);
\timing off
SELECT count(DISTINCT cluster_id) AS clusters, count(*) AS pages_in_clusters,
       (SELECT count(*) FROM pages) - count(*) AS pages_without_duplicate
FROM clusters;
\echo '--- the largest clusters, each with its representative page and two other members'
SELECT s.size, r.url AS representative,
       (SELECT string_agg(p.url, ' | ' ORDER BY p.url) FROM (
            SELECT p.url FROM clusters c JOIN pages p ON p.id = c.id
            WHERE c.cluster_id = s.cluster_id AND c.id <> s.representative ORDER BY p.url LIMIT 2) p) AS members
FROM simhash_cluster_summary('SELECT id, sh FROM pages', 5) s JOIN pages r ON r.id = s.representative
ORDER BY s.size DESC, r.url LIMIT 6;

\echo '--- the near-duplicates of one page, through the index (what a crawler asks for each new page)'
SELECT p.url, hamming(p.sh, q.sh) AS distance
FROM pages q JOIN pages p ON hamming(p.sh, q.sh) <= 5 AND p.id <> q.id
WHERE q.id = (SELECT id_a FROM near WHERE distance > 0 ORDER BY distance DESC, id_a LIMIT 1)
ORDER BY distance, p.url LIMIT 5;
