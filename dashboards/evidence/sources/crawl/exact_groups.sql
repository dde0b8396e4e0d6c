-- The largest groups of pages with the same simhash: the group's first page and one other (the
-- group's other pages are its pairs at distance 0).
SELECT g.pages AS copies, a.url AS example,
       (SELECT b.url FROM crawl_report.near_pairs n JOIN public.pages b ON b.id = n.id_b
        WHERE n.id_a = g.first_id AND n.distance = 0 ORDER BY n.id_b LIMIT 1) AS same_as
FROM (SELECT * FROM crawl_report.exact_groups ORDER BY pages DESC, first_id LIMIT 20) g
JOIN public.pages a ON a.id = g.first_id
ORDER BY g.pages DESC, g.first_id
