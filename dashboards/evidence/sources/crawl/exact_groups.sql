-- The largest groups of pages with the same simhash: the group's first two pages.
SELECT g.pages AS copies, a.url AS example, b.url AS same_as
FROM (SELECT * FROM crawl_report.exact_groups ORDER BY pages DESC, first_id LIMIT 20) g
JOIN crawl_report.crawl a ON a.id = g.first_id JOIN crawl_report.crawl b ON b.id = g.second_id
ORDER BY g.pages DESC, g.first_id
