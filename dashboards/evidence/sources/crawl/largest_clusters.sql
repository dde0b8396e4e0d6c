-- The largest clusters: the representative page (smallest id) and three other members.
SELECT c.size, r.url AS representative,
       (SELECT string_agg(m.url, ' ' ORDER BY m.id) FROM (
            SELECT p.id, p.url FROM crawl_report.dup_pages d JOIN public.pages p ON p.id = d.id
            WHERE d.cluster_id = c.cluster_id AND d.id <> c.representative ORDER BY d.id LIMIT 3) m) AS members
FROM (SELECT * FROM crawl_report.clusters ORDER BY size DESC, representative LIMIT 20) c
JOIN public.pages r ON r.id = c.representative
ORDER BY c.size DESC, c.representative
