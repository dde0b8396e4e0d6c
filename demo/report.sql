-- The crawl report over the table "pages" loaded by demo/load_pages.sql.
\pset footer off
\timing off
\echo
\echo '=== fingerprinting: simhash, the legacy fingerprints and the resemblance sketch of every page''s visible text, package by package'
ALTER TABLE pages ADD COLUMN sh simhash, ADD COLUMN fp fingerprints, ADD COLUMN sk resemblance_sketch;
\timing on
DO $$
DECLARE
    p text;
    n bigint;
BEGIN
    FOR p IN SELECT DISTINCT package FROM pages ORDER BY 1 LOOP
        UPDATE pages SET sh = simhash_html(html), fp = fingerprints_html(html), sk = resemblance_sketch_html(html)
        WHERE package = p;
        GET DIAGNOSTICS n = ROW_COUNT;
        RAISE NOTICE 'hashed % pages of %', n, p;
    END LOOP;
END $$;
\timing off
CREATE INDEX pages_sh_mih ON pages USING simhash_mih (sh);
VACUUM ANALYZE pages;
-- The rows are wide, so the planner counts them through the (much smaller) index: every page.
\echo '--- every page counted, by the plan the planner picks'
EXPLAIN (COSTS OFF) SELECT count(*) FROM pages;
SELECT count(*) AS pages_counted FROM pages;

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

\echo
\echo '=== simhash against the legacy fingerprints (duplicate when fingerprint difference <= 6) ==='
\echo '--- every pair within 10 bits or 6 fingerprint entries, exactly (simhash_threshold_pairs)'
\timing on
CREATE TEMP TABLE close_pairs AS SELECT * FROM simhash_threshold_pairs('SELECT id, sh, fp FROM pages', 10, 6);
\timing off
\echo '--- the quadrants at fingerprints <= 6 / simhash <= 5, over all pairs of pages'
SELECT quadrant, fingerprints_say, simhash_says, pairs
FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM close_pairs', 6, 5,
                       total_pairs => (SELECT count(*) * (count(*) - 1) / 2 FROM pages));
\echo '--- the threshold sweep: pairs simhash flags at each k, and how many of them fingerprints call different'
SELECT k, flagged, flagged_fp_different, fp_flagged_missed,
       CASE WHEN recommended THEN '<- recommended: the largest k with none' ELSE '' END AS note
FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM close_pairs', 6, 10);
\echo '--- the "simhash says duplicate, fingerprints say different" corner at 6/5: examples'
SELECT c.sh_diff, c.fp_diff, a.url AS page, b.url AS other
FROM close_pairs c JOIN pages a ON a.id = c.id_a JOIN pages b ON b.id = c.id_b
WHERE c.sh_diff <= 5 AND c.fp_diff > 6
ORDER BY c.fp_diff DESC, a.url LIMIT 5;
\echo '--- confirmed duplicates: the same pairs, each also needing its resemblance sketches to estimate J >= 0.87'
CREATE TEMP TABLE close_pairs_confirmed AS
SELECT c.*, resemblance(a.sk, b.sk) AS resemblance
FROM close_pairs c JOIN pages a ON a.id = c.id_a JOIN pages b ON b.id = c.id_b;
SELECT rule, quadrant, pairs
FROM simhash_quadrants_confirmed('SELECT fp_diff, sh_diff, resemblance FROM close_pairs_confirmed', 6, 5,
                                 total_pairs => (SELECT count(*) * (count(*) - 1) / 2 FROM pages))
WHERE quadrant <> 'neither';
\echo '--- the corner''s examples again, with their resemblance: the template pages are no longer duplicates'
SELECT c.sh_diff, c.fp_diff, round(c.resemblance::numeric, 2) AS resemblance, c.resemblance >= 0.87 AS confirmed,
       a.url AS page, b.url AS other
FROM close_pairs_confirmed c JOIN pages a ON a.id = c.id_a JOIN pages b ON b.id = c.id_b
WHERE c.sh_diff <= 5 AND c.fp_diff > 6
ORDER BY c.fp_diff DESC, a.url LIMIT 5;

\echo '--- heat maps of a uniform sample of 2,000,000 pairs within each package (the "crawls")'
\timing on
CREATE TEMP TABLE sample_hist AS
SELECT * FROM simhash_joint_histogram($$
    SELECT fingerprint_diff(a.fp, b.fp), hamming(a.sh, b.sh)
    FROM simhash_sample_pairs('SELECT id, package FROM pages', 2000000, seed => 1, within_group => true) s
    JOIN pages a ON a.id = s.id_a JOIN pages b ON b.id = s.id_b $$);
\timing off
SELECT count(*) AS cells, sum(pairs) AS pairs, max(pairs) AS largest_cell FROM sample_hist;
\pset tuples_only on
\pset format unaligned
\o :outdir/heatmap_log.svg
SELECT simhash_heatmap_svg('SELECT * FROM sample_hist', 'log', 6, 5,
                           'Debian documentation pages: 2,000,000 pairs, fingerprints vs simhash');
\o :outdir/heatmap_linear.svg
SELECT simhash_heatmap_svg('SELECT * FROM sample_hist', 'linear', 6, 5,
                           'Debian documentation pages: 2,000,000 pairs, fingerprints vs simhash (linear scale)');
\o
\pset tuples_only off
\pset format aligned
