-- A pooled connection or a dashboard calls the same function many times in one session, with
-- sources whose columns have other types, in other orders, and after errors. Every function that
-- runs a caller's source is called here with each column type it accepts in turn, then after a
-- failed call, then again in the reverse order: each call must answer, and answer the same.
\i sql/include/try.sql

CREATE DOMAIN rc_id AS bigint CHECK (VALUE > 0);
CREATE TABLE rc_pages (id bigint, sh simhash, fp fingerprints, sk resemblance_sketch, package text);
INSERT INTO rc_pages
SELECT i, simhash(t), fingerprints(t), resemblance_sketch(t), 'p' || (i % 2)
FROM (SELECT i, repeat('near duplicate pages share most of their words ', 20)
                || CASE WHEN i <= 6 THEN 'variant ' || (i % 3) ELSE 'another page entirely number ' || i END AS t
      FROM generate_series(1, 12) i) s;

-- Differences of every pair, for the pair and histogram sources.
CREATE TABLE rc_diffs AS
SELECT fingerprint_diff(a.fp, b.fp) AS fp_diff, hamming(a.sh, b.sh) AS sh_diff, resemblance(a.sk, b.sk) AS r
FROM rc_pages a JOIN rc_pages b ON a.id < b.id;
CREATE TABLE rc_hist AS SELECT * FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM rc_diffs');

-- runs(call, variants, failing): calls format(call, variant) for each variant, then the failing
-- source, then each variant again in reverse order; returns how many calls answered, how many
-- different answers they gave (1 when every type gives the same answer) and the failed call's error.
CREATE FUNCTION pg_temp.runs(call text, variants text[], failing text)
    RETURNS TABLE (answered integer, distinct_answers bigint, failed_with text) LANGUAGE plpgsql AS $$
DECLARE
    answers text[] := '{}';
    v text;
    order_ text[] := variants || ARRAY[NULL] || (SELECT array_agg(x ORDER BY n DESC)
                                                FROM unnest(variants) WITH ORDINALITY u(x, n));
BEGIN
    FOREACH v IN ARRAY order_ LOOP
        IF v IS NULL THEN
            failed_with := pg_temp.try(format(call, failing));
            CONTINUE;
        END IF;
        EXECUTE format('SELECT coalesce(md5(string_agg(r::text, '';'' ORDER BY r::text)), ''empty'') FROM (%s) r',
                       format(call, v))
            INTO v;
        answers := answers || v;
    END LOOP;
    answered := cardinality(answers);
    distinct_answers := (SELECT count(DISTINCT a) FROM unnest(answers) a);
    RETURN NEXT;
END $$;

-- Pair differences as smallint, integer, bigint, numeric and the hamming_distance domain.
CREATE TEMP VIEW rc_diff_sources (source) AS VALUES
    ('SELECT fp_diff, sh_diff FROM rc_diffs'),
    ('SELECT fp_diff::smallint, sh_diff::smallint FROM rc_diffs'),
    ('SELECT fp_diff::bigint, sh_diff::bigint FROM rc_diffs'),
    ('SELECT fp_diff::numeric, sh_diff::numeric FROM rc_diffs'),
    ('SELECT fp_diff, sh_diff::integer FROM rc_diffs'),
    ('SELECT fp_diff::numeric(10, 2), sh_diff FROM rc_diffs');
-- The issue's reproduction: a constant first, then the domain.
SELECT count(*) > 0 AS answered FROM simhash_joint_histogram('SELECT fp_diff, 3 FROM rc_diffs');
SELECT count(*) > 0 AS answered FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM rc_diffs');

SELECT 'joint_histogram' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_joint_histogram(%L)',
    (SELECT array_agg(source) FROM rc_diff_sources), 'SELECT 0.5, 1');
SELECT 'quadrants' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_quadrants(%L)',
    (SELECT array_agg(source) FROM rc_diff_sources), 'SELECT 1, 65');
SELECT 'threshold_sweep' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_threshold_sweep(%L)',
    (SELECT array_agg(source) FROM rc_diff_sources), 'SELECT ''a''::text, 1');

-- Histograms (fp_diff, sh_diff, pairs) for the heat map, pairs summed as a dashboard would (numeric).
SELECT 'heatmap_svg' AS f, * FROM pg_temp.runs('SELECT simhash_heatmap_svg(%L)', ARRAY[
    'SELECT fp_diff, sh_diff, pairs FROM rc_hist',
    'SELECT fp_diff::smallint, sh_diff::bigint, pairs::integer FROM rc_hist',
    'SELECT fp_diff, sh_diff, sum(pairs) FROM rc_hist GROUP BY 1, 2',
    'SELECT fp_diff::numeric, sh_diff::hamming_distance, pairs FROM rc_hist'], 'SELECT 1, 2, 2.5');

-- Confirmed differences (fp_diff, sh_diff, resemblance): resemblance as double, real and numeric.
SELECT 'confirmed_histogram' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_confirmed_histogram(%L)', ARRAY[
    'SELECT fp_diff, sh_diff, r FROM rc_diffs',
    'SELECT fp_diff::bigint, sh_diff::smallint, r::numeric FROM rc_diffs',
    'SELECT fp_diff::numeric, sh_diff, r FROM rc_diffs',
    'SELECT fp_diff, sh_diff::integer, round(r::numeric, 6)::float8 FROM rc_diffs'], 'SELECT 1, 1, 2.0');
SELECT 'quadrants_confirmed' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_quadrants_confirmed(%L)', ARRAY[
    'SELECT fp_diff, sh_diff, r FROM rc_diffs',
    'SELECT fp_diff::bigint, sh_diff::smallint, r::numeric FROM rc_diffs',
    'SELECT fp_diff::numeric, sh_diff, r FROM rc_diffs'], 'SELECT 1, 1, NULL::float8');
SELECT 'threshold_sweep_confirmed' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_threshold_sweep_confirmed(%L)', ARRAY[
    'SELECT fp_diff, sh_diff, r FROM rc_diffs',
    'SELECT fp_diff::bigint, sh_diff::smallint, r::numeric FROM rc_diffs',
    'SELECT fp_diff::numeric, sh_diff, r FROM rc_diffs'], 'SELECT 1.5, 1, 1.0');

-- Page sources: ids as bigint, integer, smallint and a domain; hashes as simhash and bigint.
CREATE TEMP VIEW rc_page_sources (source) AS VALUES
    ('SELECT id, sh FROM rc_pages'),
    ('SELECT id::integer, sh FROM rc_pages'),
    ('SELECT id::smallint, sh::bigint FROM rc_pages'),
    ('SELECT id::rc_id, sh FROM rc_pages'),
    ('SELECT id, sh::bigint FROM rc_pages');
SELECT 'pairs' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_pairs(%L, 8)',
    (SELECT array_agg(source) FROM rc_page_sources), 'SELECT id::text, sh FROM rc_pages');
SELECT 'clusters' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_clusters(%L, 8)',
    (SELECT array_agg(source) FROM rc_page_sources), 'SELECT id, sh FROM rc_pages FOR UPDATE');
SELECT 'cluster_summary' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_cluster_summary(%L, 8)',
    (SELECT array_agg(source) FROM rc_page_sources), 'SELECT 1, 2');
SELECT 'pairs_confirmed' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_pairs_confirmed(%L, 8, 0.5)', ARRAY[
    'SELECT id, sh, sk FROM rc_pages',
    'SELECT id::smallint, sh::bigint, sk FROM rc_pages',
    'SELECT id::rc_id, sh, sk FROM rc_pages'], 'SELECT id, sh, NULL::text FROM rc_pages');
SELECT 'clusters_confirmed' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_clusters_confirmed(%L, 8, 0.5)', ARRAY[
    'SELECT id, sh, sk FROM rc_pages',
    'SELECT id::integer, sh, sk FROM rc_pages',
    'SELECT id::smallint, sh::bigint, sk FROM rc_pages'], 'SELECT id, sh FROM rc_pages');
SELECT 'threshold_pairs' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_threshold_pairs(%L, 8)', ARRAY[
    'SELECT id, sh, fp FROM rc_pages',
    'SELECT id::integer, sh, fp FROM rc_pages',
    'SELECT id::smallint, sh::bigint, fp FROM rc_pages',
    'SELECT id::rc_id, sh, fp FROM rc_pages'], 'SELECT id, sh, fp FROM rc_pages; SELECT 1');
SELECT 'threshold_pairs_confirmed' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_threshold_pairs_confirmed(%L, 8)', ARRAY[
    'SELECT id, sh, fp, sk FROM rc_pages',
    'SELECT id::integer, sh, fp, sk FROM rc_pages',
    'SELECT id::smallint, sh::bigint, fp, sk FROM rc_pages'], 'SELECT id, sh, fp, sk FROM rc_pages FOR SHARE');
-- Ids (and groups) for sampling: integer types, numeric and a domain.
SELECT 'sample_pairs' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_sample_pairs(%L, 20, 3)', ARRAY[
    'SELECT id FROM rc_pages',
    'SELECT id::smallint FROM rc_pages',
    'SELECT id::numeric FROM rc_pages',
    'SELECT id::rc_id FROM rc_pages'], 'SELECT id + 0.5 FROM rc_pages');
SELECT 'sample_pairs within groups' AS f, * FROM pg_temp.runs('SELECT * FROM simhash_sample_pairs(%L, 20, 3, true)', ARRAY[
    'SELECT id, id % 2 FROM rc_pages',
    'SELECT id::integer, (id % 2)::smallint FROM rc_pages',
    'SELECT id::numeric, (id % 2)::numeric FROM rc_pages'], 'SELECT id, id % 2 FROM rc_pages FOR UPDATE');

DROP TABLE rc_pages, rc_diffs, rc_hist CASCADE;
DROP DOMAIN rc_id;
