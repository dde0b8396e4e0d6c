-- The crawl report over the table "pages" loaded by demo/load_pages.sql.
\pset footer off
\echo
\echo '=== crawl report ==='
SELECT package, count(*) AS pages, pg_size_pretty(sum(octet_length(html))::bigint) AS html
FROM pages GROUP BY package ORDER BY package;

\echo '--- exact duplicates (byte-identical HTML)'
SELECT count(*) AS duplicate_groups, sum(n) AS pages_in_them
FROM (SELECT count(*) AS n FROM pages GROUP BY md5(html) HAVING count(*) > 1) g;
SELECT n AS copies, urls[1] AS example, urls[2] AS same_as
FROM (SELECT count(*) AS n, array_agg(url ORDER BY url) AS urls FROM pages GROUP BY md5(html)
      HAVING count(*) > 1) g
ORDER BY n DESC, example LIMIT 5;
