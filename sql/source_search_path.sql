-- A source query runs with the caller's search_path. Under an empty one (pg_restore refreshing a
-- materialized view) or one naming only pg_catalog, a source that names an unqualified table,
-- function or type fails with a hint saying why; schema-qualified sources work there.
CREATE TABLE ssp_pages (id bigint, sh simhash, grp int);
INSERT INTO ssp_pages SELECT i, (i * 3)::bigint::simhash, i % 2 FROM generate_series(1, 6) i;
CREATE TABLE ssp_diffs (fp_diff int, sh_diff int);
INSERT INTO ssp_diffs VALUES (0, 0), (3, 2), (50, 30);
CREATE VIEW ssp_near AS SELECT id, sh FROM ssp_pages WHERE hamming(sh, '0000000000000000') <= 3;

-- error_and_hint(q): the SQLSTATE, message and hint of the error q raises, without the detail
-- (from PostgreSQL 19 on, "function does not exist" adds one that older versions do not print).
CREATE FUNCTION pg_temp.error_and_hint(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    message text;
    hint text;
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN state || ': ' || message || E'\nHINT: ' || hint;
END $$;

SET search_path = '';
SELECT * FROM public.simhash_pairs('SELECT id, sh FROM ssp_pages', 1);
SELECT * FROM public.simhash_cluster_summary('SELECT id, sh FROM ssp_pages', 1);
SELECT * FROM public.simhash_sample_pairs('SELECT id FROM ssp_pages', 3);
SELECT public.simhash_heatmap_svg('SELECT fp_diff, sh_diff, 1 FROM ssp_diffs');
SELECT * FROM public.simhash_joint_histogram('SELECT fp_diff, sh_diff FROM ssp_diffs');
SELECT * FROM public.simhash_quadrants('SELECT fp_diff, sh_diff FROM ssp_diffs');
SELECT * FROM public.simhash_threshold_pairs('SELECT id, sh, NULL::public.fingerprints FROM ssp_pages');
-- an unqualified function or type of the extension in the source
SELECT pg_temp.error_and_hint($$SELECT * FROM public.simhash_pairs('SELECT id, simhash(''a b c'') FROM public.ssp_pages', 1)$$);
SELECT * FROM public.simhash_pairs('SELECT id, ''0''::simhash FROM public.ssp_pages', 1);
-- qualified, they work: tables, and a view that holds the rest of the query
SELECT * FROM public.simhash_pairs('SELECT id, sh FROM public.ssp_pages', 1);
SELECT * FROM public.simhash_pairs('SELECT id, sh FROM public.ssp_near', 3);
SELECT * FROM public.simhash_joint_histogram('SELECT fp_diff, sh_diff FROM public.ssp_diffs');
SET search_path = pg_catalog;
SELECT * FROM public.simhash_pairs('SELECT id, sh FROM ssp_pages', 1);
SELECT * FROM public.simhash_joint_histogram('SELECT fp_diff, sh_diff FROM ssp_diffs');
-- A path that names a schema gets the plain error: the table is simply not there.
SET search_path = public;
SELECT * FROM simhash_pairs('SELECT id, sh FROM ssp_nowhere', 1);
SELECT * FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM ssp_nowhere');
RESET search_path;
DROP VIEW ssp_near;
DROP TABLE ssp_pages, ssp_diffs;
