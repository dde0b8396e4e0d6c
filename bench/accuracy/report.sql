-- Precision and recall of every pipeline of one corpus (psql variable tag), k = 0..10: pairs within
-- distance k among all pairs of pages, exact (simhash_pairs), joined with the ground truth.
\pset footer off
CREATE TEMP TABLE acc_flagged AS
SELECT p.pipeline, f.distance, count(*) AS n,
       count(*) FILTER (WHERE g.inter * 10 >= g.uni * 9) AS n90,
       count(*) FILTER (WHERE g.inter * 10 >= g.uni * 8) AS n80,
       count(g.id_a) AS n50
FROM (SELECT DISTINCT pipeline FROM acc_sh_:tag) p,
     LATERAL simhash_pairs(format('SELECT id, sh FROM acc_sh_%s WHERE pipeline = %L', :'tag', p.pipeline), 10) f
     LEFT JOIN acc_gt_:tag g ON g.id_a = f.id_a AND g.id_b = f.id_b
GROUP BY p.pipeline, f.distance;

CREATE TEMP TABLE acc_truth AS
SELECT count(*) FILTER (WHERE inter * 10 >= uni * 9) AS t90,
       count(*) FILTER (WHERE inter * 10 >= uni * 8) AS t80
FROM acc_gt_:tag;

\echo
\echo corpus :tag
SELECT :'tag' AS corpus, p.pipeline, k,
       sum(f.n) AS flagged,
       round(sum(f.n90)::numeric / nullif(sum(f.n), 0), 3) AS "prec J>=0.9",
       round(sum(f.n80)::numeric / nullif(sum(f.n), 0), 3) AS "prec J>=0.8",
       round(sum(f.n90)::numeric / t.t90, 3) AS "recall J>=0.9",
       round(sum(f.n80)::numeric / t.t80, 3) AS "recall J>=0.8",
       coalesce(sum(f.n - f.n50), 0) AS "J<0.5"
FROM (SELECT DISTINCT pipeline FROM acc_sh_:tag) p
     CROSS JOIN generate_series(0, 10) k
     CROSS JOIN acc_truth t
     LEFT JOIN acc_flagged f ON f.pipeline = p.pipeline AND f.distance <= k
GROUP BY p.pipeline, k, t.t90, t.t80
ORDER BY p.pipeline LIKE 'textbook%' DESC, p.pipeline, k;
