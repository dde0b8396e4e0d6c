-- The legacy fingerprints of one corpus (psql variable tag) at the legacy threshold, difference
-- <= 6, against the same ground truth: every pair within 6 among all pairs, exactly, through band
-- keys (pages within 6 share a key) and fingerprint_diff on the candidates.
\pset footer off
DROP TABLE IF EXISTS acc_fp_:tag;
CREATE TABLE acc_fp_:tag AS SELECT id, fingerprints_html(html) AS fp FROM acc_pages_:tag;
CREATE TEMP TABLE acc_fp_flagged AS
WITH keys AS (SELECT id, unnest(fingerprint_band_keys(fp, 6)) AS key FROM acc_fp_:tag),
     candidates AS (SELECT DISTINCT a.id AS id_a, b.id AS id_b
                    FROM keys a JOIN keys b ON a.key = b.key AND a.id < b.id)
SELECT c.id_a, c.id_b
FROM candidates c
     JOIN acc_fp_:tag a ON a.id = c.id_a
     JOIN acc_fp_:tag b ON b.id = c.id_b
WHERE fingerprint_diff(a.fp, b.fp) <= 6;

SELECT :'tag' AS corpus, 'fingerprints_html(html)' AS pipeline, 'difference <= 6' AS threshold,
       count(*) AS flagged,
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 9)::numeric / nullif(count(*), 0), 3) AS "prec J>=0.9",
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 8)::numeric / nullif(count(*), 0), 3) AS "prec J>=0.8",
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 9)::numeric / t.t90, 3) AS "recall J>=0.9",
       round(count(*) FILTER (WHERE g.inter * 10 >= g.uni * 8)::numeric / t.t80, 3) AS "recall J>=0.8",
       count(*) - count(g.id_a) AS "J<0.5"
FROM acc_fp_flagged f
     LEFT JOIN acc_gt_:tag g ON g.id_a = f.id_a AND g.id_b = f.id_b
     CROSS JOIN (SELECT count(*) FILTER (WHERE inter * 10 >= uni * 9) AS t90,
                        count(*) FILTER (WHERE inter * 10 >= uni * 8) AS t80
                 FROM acc_gt_:tag) t
GROUP BY t.t90, t.t80;
DROP TABLE acc_fp_:tag;
