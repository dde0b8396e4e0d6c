-- The simhash_mih access method under plans the planner builds on its own: keyless scans over
-- wide rows (count(*) as an index-only scan), any number of index conditions, the statistics a
-- DBA reads, and estimates at every radius. Each answer is compared with a sequential scan's.
SELECT setseed(0.13);
CREATE TABLE wide (id int, body text, sh simhash);
-- Wide, uncompressed rows: reading the index is far cheaper than reading the table.
ALTER TABLE wide ALTER body SET STORAGE main;
INSERT INTO wide
SELECT i, repeat(md5(i::text), 60),
       CASE WHEN i % 50 = 0 THEN NULL ELSE ('x' || substr(md5('w' || (i % 1500)), 1, 16))::bit(64)::simhash END
FROM generate_series(1, 3000) i;
CREATE INDEX wide_mih ON wide USING simhash_mih (sh);
VACUUM ANALYZE wide;
-- Rows added since the build sit in the pending pages, NULL hashes in their own chain.
INSERT INTO wide SELECT 3000 + i, repeat('p', 2000), CASE WHEN i % 7 = 0 THEN NULL ELSE simhash(i::bigint * 7919) END
FROM generate_series(1, 200) i;
DELETE FROM wide WHERE id % 11 = 0;
VACUUM ANALYZE wide;

-- A keyless scan returns every row, NULL hashes included (as btree and GiST do).
EXPLAIN (COSTS OFF) SELECT count(*) FROM wide;
SELECT count(*) AS through_index FROM wide;
SET enable_indexonlyscan = off; SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS sequential FROM wide;
RESET ALL;
-- Keyless, ordered by distance: every row, NULL hashes last.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM wide ORDER BY sh <-> '0123456789abcdef';
SELECT count(*), count(*) FILTER (WHERE sh IS NULL) AS nulls,
       bool_and(sh IS NULL OR NOT after_null) AS nulls_last
FROM (SELECT sh, bool_or(sh IS NULL) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS after_null
      FROM (SELECT sh FROM wide ORDER BY sh <-> '0123456789abcdef') o) w;
RESET enable_seqscan;

-- Many conditions on one scan: one key each, without limit (40 once crashed the server).
CREATE FUNCTION pg_temp.many(n int, base int) RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(format('sh <@ hamming_ball(%L, %s)', '0123456789abcdef', base + i % 5), ' AND ')
    FROM generate_series(1, n) i $$;
CREATE FUNCTION pg_temp.index_vs_seq(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE via_index bigint[]; via_bitmap bigint[]; via_seq bigint[];
BEGIN
    SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
    EXECUTE format('SELECT array_agg(id ORDER BY id) FROM wide WHERE %s', cond) INTO via_index;
    SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = off;
    EXECUTE format('SELECT array_agg(id ORDER BY id) FROM wide WHERE %s', cond) INTO via_bitmap;
    SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
    EXECUTE format('SELECT array_agg(id ORDER BY id) FROM wide WHERE %s', cond) INTO via_seq;
    RETURN format('%s rows, index %s, bitmap %s', coalesce(cardinality(via_seq), 0),
                  CASE WHEN via_index IS NOT DISTINCT FROM via_seq THEN 'same' ELSE 'DIFFERS' END,
                  CASE WHEN via_bitmap IS NOT DISTINCT FROM via_seq THEN 'same' ELSE 'DIFFERS' END);
END $$;
SELECT n, base, pg_temp.index_vs_seq(pg_temp.many(n, base))
FROM (VALUES (1, 30), (32, 30), (33, 64), (40, 64), (40, 28), (300, 30)) v(n, base);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM wide WHERE sh <@ hamming_ball('0123456789abcdef', 64)
    AND sh <@ hamming_ball('0123456789abcdef', 63) AND sh <@ hamming_ball('fedcba9876543210', 62);
RESET enable_seqscan;
-- Mixed with ORDER BY <->: distances in order, the same rows as the sequential scan.
SET enable_seqscan = off;
SELECT array_agg(sh <-> '0123456789abcdef' ORDER BY sh <-> '0123456789abcdef') AS via_index
FROM (SELECT sh FROM wide WHERE hamming(sh, 'fedcba9876543210') <= 36 AND hamming(sh, '0123456789abcdef') <= 30
      ORDER BY sh <-> '0123456789abcdef' LIMIT 12) t \gset
RESET enable_seqscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT array_agg(d ORDER BY d) = :'via_index' AS same_distances
FROM (SELECT sh <-> '0123456789abcdef' AS d FROM wide
      WHERE hamming(sh, 'fedcba9876543210') <= 36 AND hamming(sh, '0123456789abcdef') <= 30
      ORDER BY 1 LIMIT 12) t;
RESET ALL;

-- Scans are counted where a DBA looks for unused indexes.
SELECT pg_stat_force_next_flush();
SELECT idx_scan AS scans_before FROM pg_stat_user_indexes WHERE indexrelname = 'wide_mih' \gset
SET enable_seqscan = off;
SELECT count(*) > 0 FROM wide WHERE hamming(sh, '0123456789abcdef') <= 30;
SELECT count(*) > 0 FROM (SELECT id FROM wide ORDER BY sh <-> '0123456789abcdef' LIMIT 3) t;
SET enable_indexscan = off;
SELECT count(*) > 0 FROM wide WHERE hamming(sh, '0123456789abcdef') <= 30;
RESET ALL;
SELECT pg_stat_force_next_flush();
SELECT idx_scan - :scans_before AS new_scans, idx_tup_read > 0 AS tuples_read
FROM pg_stat_user_indexes WHERE indexrelname = 'wide_mih';

-- Estimates are probabilities at every radius, on never-analyzed, temporary, empty and analyzed
-- tables (radius 61..63 once failed with "invalid function selectivity").
CREATE TEMP TABLE never_analyzed AS SELECT id, sh FROM wide;
CREATE INDEX ON never_analyzed USING simhash_mih (sh);
CREATE TEMP TABLE empty_table (id int, sh simhash);
CREATE FUNCTION pg_temp.plans_everywhere(tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r int; failures text := ''; line text;
BEGIN
    FOREACH r IN ARRAY ARRAY[-2147483648, -1, 0, 1, 5, 31, 32, 60, 61, 62, 63, 64, 65, 2147483647] || ARRAY(SELECT generate_series(-1, 64)) LOOP
        BEGIN
            FOR line IN EXECUTE format('EXPLAIN SELECT id FROM %s WHERE hamming(sh, %L) <= %s', tab, '0123456789abcdef', r) LOOP END LOOP;
            FOR line IN EXECUTE format('EXPLAIN SELECT id FROM %s WHERE hamming(sh, %L) < %s', tab, '0123456789abcdef', r) LOOP END LOOP;
            FOR line IN EXECUTE format('EXPLAIN SELECT id FROM %s WHERE hamming_within(sh, %L, %s)', tab, '0123456789abcdef', r) LOOP END LOOP;
            FOR line IN EXECUTE format('EXPLAIN SELECT id FROM %s WHERE sh <@ hamming_ball(%L, %s)', tab, '0123456789abcdef', greatest(r, -1)) LOOP END LOOP;
        EXCEPTION WHEN OTHERS THEN
            failures := failures || format(' %s: %s %s;', r, SQLSTATE, SQLERRM);
        END;
    END LOOP;
    RETURN coalesce(nullif(failures, ''), 'every radius planned');
END $$;
SELECT t, pg_temp.plans_everywhere(t) FROM unnest(ARRAY['wide', 'never_analyzed', 'empty_table']) t;
SELECT r, (SELECT count(*) FROM never_analyzed WHERE hamming(sh, '0123456789abcdef') <= r) AS answers
FROM unnest(ARRAY[-1, 0, 61, 62, 63, 64, 2147483647]) r;
DROP TABLE wide;
