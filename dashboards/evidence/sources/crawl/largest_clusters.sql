-- The largest clusters: the canonical page (simhash_dedup_start's keep) and three other members.
SELECT c.size, r.url AS canonical,
       (SELECT string_agg(m.url, ' ' ORDER BY m.id) FROM (
            SELECT p.id, p.url FROM crawl_report.dup_pages d JOIN crawl_report.crawl p ON p.id = d.id
            WHERE d.cluster_id = c.cluster_id AND d.id <> c.canonical ORDER BY d.id LIMIT 3) m) AS members
FROM (SELECT * FROM crawl_report.clusters ORDER BY size DESC, cluster_id LIMIT 20) c
JOIN crawl_report.crawl r ON r.id = c.canonical
ORDER BY c.size DESC, c.cluster_id
