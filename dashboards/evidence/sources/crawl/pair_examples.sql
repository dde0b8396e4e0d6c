-- The most different near-duplicate pairs, side by side.
SELECT n.distance, a.url AS page, b.url AS near_duplicate
FROM (SELECT * FROM crawl_report.near_pairs ORDER BY distance DESC, id_a, id_b LIMIT 20) n
JOIN public.pages a ON a.id = n.id_a JOIN public.pages b ON b.id = n.id_b
ORDER BY n.distance DESC, n.id_a, n.id_b
