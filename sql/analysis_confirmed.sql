-- The threshold analysis with confirmation: simhash alone, simhash confirmed and fingerprints.
\i sql/include/try.sql

-- 30 sites of 5 pages, each page its site's template with a few words changed.
CREATE TABLE ac_pages (id bigint PRIMARY KEY, body text);
INSERT INTO ac_pages
SELECT s * 10 + p,
       (SELECT string_agg(CASE WHEN (w * 7 + p * 13) % 1000 < p * (s % 6 + 1) * 3 THEN 'edit' || p || '_' || w
                               ELSE 'site' || s || 'word' || w END, ' ' ORDER BY w)
        FROM generate_series(1, 200) w)
FROM generate_series(1, 30) s, generate_series(1, 5) p;
ALTER TABLE ac_pages ADD COLUMN sh simhash GENERATED ALWAYS AS (simhash(body)) STORED,
                     ADD COLUMN fp fingerprints GENERATED ALWAYS AS (fingerprints(body)) STORED,
                     ADD COLUMN sk resemblance_sketch GENERATED ALWAYS AS (resemblance_sketch(body)) STORED;

-- The pairs are simhash_threshold_pairs' pairs, each with its sketches' resemblance.
CREATE TEMP TABLE ac_pairs AS
SELECT * FROM simhash_threshold_pairs_confirmed('SELECT id, sh, fp, sk FROM ac_pages', 8, 6);
SELECT (SELECT count(*) FROM ac_pairs) AS pairs,
       (SELECT count(*) FROM (
            SELECT t.*, resemblance(a.sk, b.sk) FROM simhash_threshold_pairs('SELECT id, sh, fp FROM ac_pages', 8, 6) t
            JOIN ac_pages a ON a.id = t.id_a JOIN ac_pages b ON b.id = t.id_b
            EXCEPT ALL SELECT * FROM ac_pairs) d) AS missing;

-- The "simhash" rows are simhash_quadrants'; the confirmed rows count the same pairs, and a pair
-- leaves "simhash says duplicate" only if its resemblance is below the threshold.
CREATE TEMP TABLE ac_quadrants AS
SELECT * FROM simhash_quadrants_confirmed('SELECT fp_diff, sh_diff, resemblance FROM ac_pairs', total_pairs => 150 * 149 / 2);
SELECT * FROM ac_quadrants;
SELECT (SELECT count(*) FROM (SELECT quadrant, fingerprints_say, rule_says AS simhash_says, pairs FROM ac_quadrants
                              WHERE rule = 'simhash'
                              EXCEPT ALL SELECT * FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM ac_pairs',
                                                                          total_pairs => 150 * 149 / 2)) d) AS simhash_rows_differ,
       (SELECT sum(pairs) FROM ac_quadrants WHERE rule = 'simhash confirmed') AS confirmed_total,
       (SELECT pairs FROM ac_quadrants WHERE rule = 'simhash confirmed' AND quadrant = 'simhash only') =
       (SELECT count(*) FROM ac_pairs WHERE sh_diff <= 5 AND fp_diff > 6 AND resemblance >= 0.87) AS confirmed_simhash_only_counted;

-- The sweep: simhash_threshold_sweep's columns, and the confirmed ones counted directly.
CREATE TEMP TABLE ac_sweep AS
SELECT * FROM simhash_threshold_sweep_confirmed('SELECT fp_diff, sh_diff, resemblance FROM ac_pairs', max_k => 8,
                                                min_resemblance => 0.9);
SELECT * FROM ac_sweep;
SELECT count(*) AS rows_differ FROM (
    SELECT k, flagged, flagged_fp_different, fp_flagged_missed FROM ac_sweep
    EXCEPT ALL SELECT k, flagged, flagged_fp_different, fp_flagged_missed
    FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM ac_pairs', max_k => 8)) d;
SELECT count(*) AS confirmed_miscounted FROM ac_sweep s
WHERE s.confirmed <> (SELECT count(*) FROM ac_pairs WHERE sh_diff <= s.k AND resemblance >= 0.9)
   OR s.confirmed_fp_different <> (SELECT count(*) FROM ac_pairs WHERE sh_diff <= s.k AND resemblance >= 0.9 AND fp_diff > 6)
   OR s.confirmed_fp_missed <> (SELECT count(*) FROM ac_pairs WHERE fp_diff <= 6 AND NOT (sh_diff <= s.k AND resemblance >= 0.9))
   OR s.fp_flagged <> (SELECT count(*) FROM ac_pairs WHERE fp_diff <= 6);

-- The histogram of confirmed cells sums to the pairs.
SELECT sum(pairs) AS pairs, sum(pairs) FILTER (WHERE confirmed) AS confirmed
FROM simhash_confirmed_histogram('SELECT fp_diff, sh_diff, resemblance FROM ac_pairs', 0.87);

-- Errors.
SELECT pg_temp.try($$SELECT * FROM simhash_confirmed_histogram('SELECT 1, 2, 0.5', 1.5)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_confirmed_histogram('SELECT 1, 2, 0.5', 'NaN')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_confirmed_histogram('SELECT 1, 2, NULL::float8')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_confirmed_histogram('SELECT 1, 2, 1.5')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_confirmed_histogram('SELECT 1, 65, 0.5')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_confirmed_histogram('SELECT 1.5, 2, 0.5')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_quadrants_confirmed('SELECT 1, 2, 0.5', total_pairs => 0)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_quadrants_confirmed('SELECT 1, 2, 0.5', k => 65)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_quadrants_confirmed('SELECT 1, 2, 0.5', min_resemblance => NULL)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_threshold_sweep_confirmed('SELECT 1, 2, 0.5', max_k => 65)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_threshold_pairs_confirmed('SELECT id, sh, fp FROM ac_pages')$$);

DROP TABLE ac_pages;
