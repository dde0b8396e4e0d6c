-- What the dashboard shows against the same figures computed from scratch over the crawl table as it
-- is now (simhash_clusters and simhash_pairs over every hashed page, through crawl_report.crawl):
-- the partition into clusters, the cluster sizes, the pairs per distance, the most different pairs,
-- the exact groups, the counts per site and the headline figures. Run as the report's owner, right
-- after CALL crawl_report.refresh() with no writer in between; fails unless every figure agrees.
-- Included by maintained.sql; :label names the moment.
SELECT extnamespace::regnamespace AS ext FROM pg_extension WHERE extname = 'simhash' \gset
SET search_path = pg_catalog, :"ext", pg_temp;
DROP TABLE IF EXISTS pg_temp.want_pages, pg_temp.want_members, pg_temp.want_pairs, pg_temp.want_hashes, pg_temp.differences;
CREATE TEMP TABLE want_pages AS SELECT id, site, sh FROM crawl_report.crawl WHERE sh IS NOT NULL;
CREATE TEMP TABLE want_members AS
SELECT c.id, min(c.id) OVER (PARTITION BY c.cluster_id) AS first_id, count(*) OVER (PARTITION BY c.cluster_id) AS size
FROM simhash_clusters('SELECT id, sh FROM pg_temp.want_pages', (SELECT k FROM crawl_report.settings)) c;
CREATE TEMP TABLE want_pairs AS
SELECT * FROM simhash_pairs('SELECT id, sh FROM pg_temp.want_pages', (SELECT k FROM crawl_report.settings));
CREATE TEMP TABLE want_hashes AS
SELECT sh, count(*) AS n, min(id) AS first_id, (array_agg(id ORDER BY id))[2] AS second_id FROM pg_temp.want_pages GROUP BY sh;
CREATE TEMP TABLE differences AS
SELECT 'cluster members' AS what, count(*) AS differences FROM (
    (SELECT id, first_id, size FROM pg_temp.want_members
     EXCEPT SELECT d.id, min(d.id) OVER (PARTITION BY d.cluster_id), c.size
            FROM crawl_report.dup_pages d JOIN crawl_report.clusters c USING (cluster_id))
    UNION ALL
    (SELECT d.id, min(d.id) OVER (PARTITION BY d.cluster_id), c.size
     FROM crawl_report.dup_pages d JOIN crawl_report.clusters c USING (cluster_id)
     EXCEPT SELECT id, first_id, size FROM pg_temp.want_members)) x
UNION ALL
SELECT 'canonical pages', count(*) FROM crawl_report.clusters c
WHERE NOT EXISTS (SELECT FROM simhash_dedup_members m, crawl_report.settings s
                  WHERE m.tbl = s.tbl AND m.id = c.canonical AND m.cluster_id = c.cluster_id AND m.canonical)
UNION ALL
SELECT 'cluster sizes', count(*) FROM (
    (SELECT size, count(*) FROM (SELECT DISTINCT first_id, size FROM pg_temp.want_members) w GROUP BY size
     EXCEPT SELECT size, clusters FROM crawl_report.cluster_sizes)
    UNION ALL
    (SELECT size, clusters FROM crawl_report.cluster_sizes
     EXCEPT SELECT size, count(*) FROM (SELECT DISTINCT first_id, size FROM pg_temp.want_members) w GROUP BY size)) x
UNION ALL
SELECT 'pairs per distance', count(*) FROM (
    (SELECT distance, count(*) FROM pg_temp.want_pairs GROUP BY distance EXCEPT SELECT distance, pairs FROM crawl_report.pair_counts)
    UNION ALL
    (SELECT distance, pairs FROM crawl_report.pair_counts EXCEPT SELECT distance, count(*) FROM pg_temp.want_pairs GROUP BY distance)) x
UNION ALL
-- the 20 most different pairs of distinct simhashes (each by the first page of each hash), and
-- exact groups by their first two pages
SELECT 'most different pairs', count(*) FROM (
    (SELECT * FROM (SELECT DISTINCT p.distance, least(ha.first_id, hb.first_id) AS id_a, greatest(ha.first_id, hb.first_id) AS id_b
                    FROM pg_temp.want_pairs p JOIN pg_temp.want_pages a ON a.id = p.id_a JOIN pg_temp.want_pages b ON b.id = p.id_b
                    JOIN pg_temp.want_hashes ha ON ha.sh = a.sh JOIN pg_temp.want_hashes hb ON hb.sh = b.sh
                    WHERE p.distance > 0
                    UNION SELECT 0, first_id, second_id FROM pg_temp.want_hashes WHERE n > 1) w
     ORDER BY distance DESC, id_a, id_b LIMIT 20)
    EXCEPT
    (SELECT distance, id_a, id_b FROM crawl_report.pair_examples ORDER BY distance DESC, id_a, id_b LIMIT 20)) x
UNION ALL
SELECT 'exact groups', count(*) FROM (
    (SELECT sh::bigint, n, first_id, second_id FROM pg_temp.want_hashes WHERE n > 1
     EXCEPT SELECT sh, pages, first_id, second_id FROM crawl_report.exact_groups)
    UNION ALL
    (SELECT sh, pages, first_id, second_id FROM crawl_report.exact_groups
     EXCEPT SELECT sh::bigint, n, first_id, second_id FROM pg_temp.want_hashes WHERE n > 1)) x
UNION ALL
SELECT 'counts per site', count(*) FROM (
    (SELECT p.site, count(*), count(m.id), count(m.id) FILTER (WHERE h.n > 1)
     FROM pg_temp.want_pages p LEFT JOIN pg_temp.want_members m ON m.id = p.id JOIN pg_temp.want_hashes h ON h.sh = p.sh
     GROUP BY p.site
     EXCEPT SELECT site, pages, near_dup_pages, exact_dup_pages FROM crawl_report.site_stats)
    UNION ALL
    (SELECT site, pages, near_dup_pages, exact_dup_pages FROM crawl_report.site_stats
     EXCEPT SELECT p.site, count(*), count(m.id), count(m.id) FILTER (WHERE h.n > 1)
     FROM pg_temp.want_pages p LEFT JOIN pg_temp.want_members m ON m.id = p.id JOIN pg_temp.want_hashes h ON h.sh = p.sh
     GROUP BY p.site)) x
UNION ALL
SELECT 'headline figures', count(*) FROM (
    SELECT (SELECT count(*) FROM pg_temp.want_pages), (SELECT count(DISTINCT first_id) FROM pg_temp.want_members),
           (SELECT count(*) FROM pg_temp.want_members), (SELECT count(*) FROM pg_temp.want_pairs),
           (SELECT count(*) FROM pg_temp.want_hashes WHERE n > 1), (SELECT coalesce(sum(n), 0) FROM pg_temp.want_hashes WHERE n > 1),
           0::bigint
    EXCEPT
    SELECT pages, clusters, pages_in_clusters, near_pairs, exact_groups, pages_in_exact_groups, uncounted_clusters
    FROM crawl_report.totals) x;
SELECT sum(differences) = 0 AS agree, (SELECT pages_in_clusters FROM crawl_report.totals) AS members,
       (SELECT near_pairs FROM crawl_report.totals) AS pairs, (SELECT last_mode FROM crawl_report.state) AS mode
FROM pg_temp.differences \gset
\if :agree
\echo :label ': the dashboard equals simhash_clusters and simhash_pairs over the same rows (' :members 'pages in clusters,' :pairs 'pairs; refresh:' :mode ')'
\else
SELECT * FROM pg_temp.differences WHERE differences > 0;
DO $$ BEGIN RAISE EXCEPTION 'the dashboard differs from simhash_clusters and simhash_pairs over the same rows'; END $$;
\endif
RESET search_path;
