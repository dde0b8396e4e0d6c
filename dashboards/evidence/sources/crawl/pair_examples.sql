-- The most different near-duplicate pairs, side by side: pairs of distinct simhashes, each shown by
-- its first page (an exact group by its first two pages).
SELECT n.distance, a.url AS page, b.url AS near_duplicate
FROM (SELECT * FROM crawl_report.pair_examples ORDER BY distance DESC, id_a, id_b LIMIT 20) n
JOIN crawl_report.crawl a ON a.id = n.id_a JOIN crawl_report.crawl b ON b.id = n.id_b
ORDER BY n.distance DESC, n.id_a, n.id_b
