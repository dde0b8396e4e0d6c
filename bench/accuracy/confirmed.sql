-- Confirmed duplicates on one corpus (psql variable tag), against the same ground truth: the
-- default simhash_html(html) alone, confirmed by resemblance_sketch_html(html) at several
-- min_resemblance values, for k = 0..10. One confirmed job with min_resemblance 0 yields every pair
-- within 10 bits with its estimate; the thresholds are applied to that list.
\pset footer off
DROP TABLE IF EXISTS acc_sk_:tag;
CREATE TABLE acc_sk_:tag AS
SELECT id, simhash_html(html) AS sh, resemblance_sketch_html(html) AS sk FROM acc_pages_:tag;
CREATE TEMP TABLE acc_confirmed AS
SELECT * FROM simhash_pairs_confirmed(format('SELECT id, sh, sk FROM acc_sk_%s', :'tag'), 10, 0);

\echo
\echo corpus :tag, confirmed
SELECT :'tag' AS corpus, coalesce('>= ' || m.min, 'alone') AS confirmation, k,
       count(f.id_a) AS flagged,
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 8)::numeric / nullif(count(f.id_a), 0), 3) AS "prec J>=0.8",
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 9)::numeric / t.t90, 3) AS "recall J>=0.9",
       count(f.id_a) - count(g.id_a) AS "J<0.5",
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 9)::numeric / nullif(count(f.id_a), 0), 3) AS "prec J>=0.9",
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 8)::numeric / t.t80, 3) AS "recall J>=0.8"
FROM (VALUES (NULL::numeric), (0.7), (0.8), (0.85), (0.87), (0.9)) m(min)
     CROSS JOIN generate_series(0, 10) k
     CROSS JOIN (SELECT count(*) FILTER (WHERE inter * 10 >= uni * 9) AS t90,
                        count(*) FILTER (WHERE inter * 10 >= uni * 8) AS t80
                 FROM acc_gt_:tag) t
     LEFT JOIN acc_confirmed f ON f.distance <= k AND (m.min IS NULL OR f.resemblance >= m.min)
     LEFT JOIN acc_gt_:tag g ON g.id_a = f.id_a AND g.id_b = f.id_b
GROUP BY m.min, k, t.t90, t.t80
ORDER BY m.min NULLS FIRST, k;

-- How close the estimate is: its error against the exact J of the flagged pairs the ground truth
-- lists (J >= 0.5).
SELECT :'tag' AS corpus, count(*) AS pairs,
       round(avg(f.resemblance - g.inter::float8 / g.uni)::numeric, 4) AS mean_error,
       round(stddev(f.resemblance - g.inter::float8 / g.uni)::numeric, 4) AS sd_error
FROM acc_confirmed f JOIN acc_gt_:tag g ON g.id_a = f.id_a AND g.id_b = f.id_b
WHERE f.distance <= 5;
