-- Runs of a simhash_mih index: with a small pending_limit, inserts in many statements make many
-- sorted runs (each insert that fills the pending list writes it as a run, size tiers merge them);
-- radius and nearest-neighbour answers through the index equal a sequential scan's with many runs,
-- pending rows, deletes and VACUUM between merges, after a forced merge, for the compact layout
-- and for 2 and 6 blocks. Exact duplicates in different runs tie.
SET jit = off;
-- Autovacuum off: a VACUUM writes the pending rows as a run, so it would change the state shown.
-- base_share = 0: the index never reaches a base run's size, and its merge worker does not settle
-- it once the inserts pause either (which it would do after simhash.settle_delay on a slow machine).
CREATE TABLE rt (id int, sh simhash) WITH (autovacuum_enabled = off);
CREATE INDEX rt_mih ON rt USING simhash_mih (sh) WITH (pending_limit = 64, base_share = 0);
-- 64 kB: 8 pages of pending rows.
SELECT pending_limit_rows FROM simhash_mih_state('rt_mih');
-- 36 statements of 1,000 rows: random hashes, a cluster around one base, a duplicate and a NULL
-- in each.
DO $$
BEGIN
    FOR b IN 0..35 LOOP
        INSERT INTO rt SELECT b * 1000 + i, ('x' || substr(md5(b || '/' || i), 1, 16))::bit(64)::simhash
        FROM generate_series(1, 995) i;
        INSERT INTO rt SELECT b * 1000 + 995 + m,
            'f0f0f0f0f0f0f0f0'::simhash # ((1::bigint << ((b * 5 + m) % 64)) | (1::bigint << ((b + m * 11) % 64)))::simhash
        FROM generate_series(0, 2) m;
        INSERT INTO rt VALUES (b * 1000 + 998, '0123456789abcdef'), (b * 1000 + 999, NULL);
    END LOOP;
END $$;
ANALYZE rt;
-- Several runs, the pending rows below twice the limit, and every run sound.
SELECT runs > 2 AS several_runs, pending_rows < 2 * pending_limit_rows AS bounded,
       sorted_rows + pending_rows = 35964 AS all_rows, written_rows > inserted_rows - pending_rows AS rewritten
FROM simhash_mih_state('rt_mih');
SELECT sum(rows) = (SELECT sorted_rows FROM simhash_mih_state('rt_mih')) AS runs_add_up,
       max(tier) >= 1 AS merged_tiers
FROM simhash_mih_runs('rt_mih');
SELECT blocks, sorted_rows, live_sorted_rows, pending_rows FROM simhash_mih_check('rt_mih');

CREATE TABLE rq AS
SELECT row_number() OVER () AS qid, q FROM (
    SELECT sh AS q FROM rt WHERE id % 1777 = 0 AND sh IS NOT NULL
    UNION ALL SELECT 'f0f0f0f0f0f0f0f0'::simhash
    UNION ALL SELECT '0123456789abcdee'::simhash
    UNION ALL SELECT ('x' || substr(md5('q' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 5) i) s;

-- Radius: queries whose answer through the index (index scan, then bitmap scan) differs from a
-- sequential scan's.
CREATE FUNCTION runs_radius_mismatches(k int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a int[]; b int[]; c int[];
BEGIN
    FOR q_ IN SELECT q FROM rq LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO a FROM rt WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = off;
        SELECT array_agg(id ORDER BY id) INTO c FROM rt WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO b FROM rt WHERE hamming(sh, q_) <= k;
        RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b OR c IS DISTINCT FROM b THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;
-- Nearest neighbours: the distances in the index scan's order against a sort's (LIMIT NULL: every
-- row, NULLs last), and for the whole table the same rows, none twice. (The order is taken by scan
-- position pos: from PostgreSQL 16 on, array_agg(id ORDER BY id) may sort the aggregate's input.)
CREATE FUNCTION runs_knn_mismatches(lim int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a int[]; b int[]; ai int[]; bi int[];
BEGIN
    FOR q_ IN SELECT q FROM rq WHERE lim IS NOT NULL OR qid % 3 = 0 LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off;
        SELECT array_agg(d ORDER BY pos), array_agg(id ORDER BY id) INTO a, ai FROM
            (SELECT id, d, row_number() OVER () AS pos FROM
                (SELECT id, (sh <-> q_)::int AS d FROM rt ORDER BY sh <-> q_ LIMIT lim) s0) s;
        RESET enable_seqscan; RESET enable_sort; SET LOCAL enable_indexscan = off;
        SELECT array_agg(d ORDER BY pos), array_agg(id ORDER BY id) INTO b, bi FROM
            (SELECT id, d, row_number() OVER () AS pos FROM
                (SELECT id, (sh <-> q_)::int AS d FROM rt ORDER BY sh <-> q_ LIMIT lim) s0) s;
        RESET enable_indexscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b OR (lim IS NULL AND ai IS DISTINCT FROM bi) THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;
CREATE FUNCTION runs_all_mismatches() RETURNS TABLE (k text, mismatches bigint) LANGUAGE sql AS $$
    SELECT 'radius ' || k, runs_radius_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k
    UNION ALL SELECT 'knn ' || coalesce(l::text, 'all'), runs_knn_mismatches(l) FROM unnest(ARRAY[1, 10, 100, NULL]) l
$$;

-- The planner's own choice uses the index for both query forms.
EXPLAIN (COSTS OFF) SELECT id FROM rt WHERE hamming(sh, '0123456789abcdef') <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM rt ORDER BY sh <-> '0123456789abcdef' LIMIT 10;
SELECT * FROM runs_all_mismatches();
-- The 36 duplicates of one hash, in many runs, tie at distance 0, in tid order.
SELECT count(*) AS duplicates FROM (SELECT id FROM rt ORDER BY sh <-> '0123456789abcdef' LIMIT 36) s
WHERE id % 1000 = 998;

-- Deletes and updates, VACUUM (which writes the pending rows as a run and merges due tiers),
-- more inserts, then a forced merge of everything.
DELETE FROM rt WHERE id % 4 = 0;
UPDATE rt SET sh = sh # '0000000100000001' WHERE id % 9 = 0;
SELECT * FROM runs_all_mismatches();
VACUUM rt;
SELECT pending_rows FROM simhash_mih_state('rt_mih');
SELECT blocks, live_sorted_rows, pending_rows FROM simhash_mih_check('rt_mih');
SELECT * FROM runs_all_mismatches();
INSERT INTO rt SELECT 100000 + i, ('x' || substr(md5('late' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) i;
DELETE FROM rt WHERE id % 5 = 0;
VACUUM rt;
SELECT * FROM runs_all_mismatches();
SELECT simhash_mih_merge('rt_mih') AS merged_rows, (SELECT count(sh) FROM rt) AS live_rows;
SELECT runs, sorted_rows, pending_rows, sealed_rows FROM simhash_mih_state('rt_mih');
SELECT blocks, sorted_rows = live_sorted_rows AS only_live, pending_rows FROM simhash_mih_check('rt_mih');
SELECT * FROM runs_all_mismatches();
-- Nothing to merge: no rows written.
SELECT simhash_mih_merge('rt_mih') AS merged_again;

-- The compact layout and 2 and 6 blocks, each with runs made by inserts.
CREATE FUNCTION runs_load(opts text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DROP INDEX rt_mih;
    TRUNCATE rt;
    EXECUTE format('CREATE INDEX rt_mih ON rt USING simhash_mih (sh) WITH (pending_limit = 64, base_share = 0, %s)', opts);
    FOR b IN 0..11 LOOP
        INSERT INTO rt SELECT b * 1000 + i, ('x' || substr(md5(opts || b || '/' || i), 1, 16))::bit(64)::simhash
        FROM generate_series(1, 997) i;
        INSERT INTO rt VALUES (b * 1000 + 998, '0123456789abcdef'), (b * 1000 + 999, NULL);
        INSERT INTO rt SELECT b * 1000 + 1000, q # '0000000000000003' FROM rq WHERE qid = b % 5 + 1;
    END LOOP;
    DELETE FROM rt WHERE id % 7 = 0;
END $$;
SELECT runs_load('compact = on');
SELECT runs > 1 AS several_runs, blocks FROM simhash_mih_state('rt_mih');
SELECT * FROM runs_all_mismatches();
VACUUM rt;
SELECT * FROM runs_all_mismatches() WHERE k IN ('radius 5', 'knn 10');
SELECT live_sorted_rows > 0 AS checked FROM simhash_mih_check('rt_mih');
SELECT runs_load('blocks = 2');
SELECT * FROM runs_all_mismatches();
VACUUM rt;
SELECT * FROM runs_all_mismatches() WHERE k IN ('radius 5', 'knn 10');
SELECT blocks, live_sorted_rows > 0 AS checked FROM simhash_mih_check('rt_mih');
SELECT runs_load('blocks = 6');
SELECT * FROM runs_all_mismatches();
VACUUM rt;
SELECT * FROM runs_all_mismatches() WHERE k IN ('radius 5', 'knn 10');
SELECT blocks, runs > 1 AS several_runs FROM simhash_mih_state('rt_mih');
SELECT blocks, live_sorted_rows > 0 AS checked FROM simhash_mih_check('rt_mih');
-- The options are checked.
CREATE INDEX ON rt USING simhash_mih (sh) WITH (pending_limit = 10);
CREATE INDEX ON rt USING simhash_mih (sh) WITH (base_share = -1);
ALTER INDEX rt_mih SET (base_share = 1025);
ALTER INDEX rt_mih SET (base_share = 0);
SELECT reloptions FROM pg_class WHERE relname = 'rt_mih';
ALTER INDEX rt_mih RESET (base_share);
-- Only the owner of an index merges it; any role that may read the table sees its runs.
CREATE ROLE regress_simhash_runs;
GRANT SELECT ON rt TO regress_simhash_runs;
SET ROLE regress_simhash_runs;
SELECT runs > 0 AS visible FROM simhash_mih_state('rt_mih');
SELECT simhash_mih_merge('rt_mih');
RESET ROLE;
REVOKE SELECT ON rt FROM regress_simhash_runs;
SET ROLE regress_simhash_runs;
SELECT runs FROM simhash_mih_state('rt_mih');
RESET ROLE;
DROP ROLE regress_simhash_runs;
SELECT simhash_mih_merge('rt');

-- A merge of runs whose rows are all dead writes no run and frees every page they held: only the
-- meta page and the (emptied) page of NULL rows stay in use.
DELETE FROM rt;
VACUUM rt;
SELECT runs > 1 AS several_runs, sorted_rows FROM simhash_mih_state('rt_mih');
SELECT simhash_mih_merge('rt_mih') AS merged_rows;
SELECT runs, pages - free_pages AS pages_in_use FROM simhash_mih_state('rt_mih'), simhash_mih_check('rt_mih');

-- Small runs merge by size tiers: an inserter merges the smallest tier (four flushes' runs), the
-- background worker that it starts the others, without a VACUUM. The index's first run (100,000
-- rows) shares tier 2 (74,496 to 297,983 rows at a limit of 4,656) with the runs that 16 flushes
-- each make (a flush takes the limit's 8 full pages and the row that started the ninth), and when
-- three of those are there the four runs merge into one big run of 323,536 rows (64 limits: 297,984
-- rows or more).
-- The index is far from a base run's size (four big runs' rows), and with base_share = 0 its
-- worker does not settle it once the inserts stop either: the runs stay as the merges left them.
CREATE TABLE rb (id int, sh simhash) WITH (autovacuum_enabled = off);
INSERT INTO rb SELECT i, ('x' || substr(md5('b' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 100000) i;
CREATE INDEX rb_mih ON rb USING simhash_mih (sh) WITH (pending_limit = 64, base_share = 0);
DO $$
BEGIN
    FOR b IN 1..300 LOOP
        INSERT INTO rb SELECT 100000 + b * 1000 + i, ('x' || substr(md5('b' || b || '/' || i), 1, 16))::bit(64)::simhash
        FROM generate_series(1, 1000) i;
    END LOOP;
END $$;
-- Until the worker is done: no small tier has four runs (the worker also merges the smallest's,
-- should an inserter have found the small merges' lock taken while it chose its runs), and no
-- worker runs.
DO $$
BEGIN
    FOR i IN 1..600 LOOP
        EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge')
            AND NOT EXISTS (SELECT FROM simhash_mih_runs('rb_mih') WHERE tier BETWEEN 0 AND 2
                            GROUP BY tier HAVING count(*) >= 4);
        PERFORM pg_sleep(0.1);
        PERFORM pg_stat_clear_snapshot();
    END LOOP;
END $$;
SELECT tier, rows FROM simhash_mih_runs('rb_mih') ORDER BY rows DESC;
SELECT pending_rows FROM simhash_mih_state('rb_mih');
SELECT blocks, sorted_rows, live_sorted_rows, pending_rows FROM simhash_mih_check('rb_mih');
DROP TABLE rt, rq, rb;

-- A session reads pending pages where it last found them (mih_am_pages.c): a TRUNCATE gives the
-- index a new file with the same block numbers, a new index takes them too, and a temporary index
-- (its pages in this session's local buffers) has them beside a shared one; every scan of the
-- session answers from its own index's pages, as the sequential scan does.
CREATE TABLE ph (id int, sh simhash) WITH (autovacuum_enabled = off);
CREATE INDEX ph_mih ON ph USING simhash_mih (sh);
CREATE TEMP TABLE ph_temp (id int, sh simhash);
CREATE INDEX ph_temp_mih ON ph_temp USING simhash_mih (sh);
CREATE FUNCTION pg_temp.hashes(tag text) RETURNS SETOF simhash LANGUAGE sql AS $$
    SELECT ('x' || substr(md5(tag || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 2000) i
$$;
-- Rows of ph (or ph_temp) within 3 of the first hashes of each tag, by the index and by a
-- sequential scan: 'index=seq' lists them when they agree.
CREATE FUNCTION pg_temp.found(tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE by_index text; by_seq text; q text := 'SELECT string_agg(t || '':'' || n, '' '' ORDER BY t) FROM
        (SELECT t, count(*) FILTER (WHERE hamming(sh, h) <= 3) AS n FROM unnest(ARRAY[''a'', ''b'', ''c'', ''d'']) t,
         LATERAL (SELECT h FROM pg_temp.hashes(t) h LIMIT 3) hs, LATERAL (SELECT sh FROM %I WHERE hamming(sh, h) <= 3) r
         GROUP BY t) s';
BEGIN
    SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
    EXECUTE format(q, tab) INTO by_index;
    SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
    EXECUTE format(q, tab) INTO by_seq;
    RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
    RETURN CASE WHEN by_index IS NOT DISTINCT FROM by_seq THEN 'index=seq ' || coalesce(by_index, '-')
                ELSE 'index ' || coalesce(by_index, '-') || ' seq ' || coalesce(by_seq, '-') END;
END $$;
INSERT INTO ph SELECT 1, h FROM pg_temp.hashes('a') h;
INSERT INTO ph_temp SELECT 2, h FROM pg_temp.hashes('b') h;
SELECT pending_rows FROM simhash_mih_state('ph_mih');
SELECT pg_temp.found('ph') AS shared, pg_temp.found('ph_temp') AS temporary, pg_temp.found('ph') AS shared_again;
TRUNCATE ph;
INSERT INTO ph SELECT 3, h FROM pg_temp.hashes('c') h;
SELECT pg_temp.found('ph') AS truncated, pg_temp.found('ph_temp') AS temporary;
DROP INDEX ph_mih;
CREATE INDEX ph_mih ON ph USING simhash_mih (sh);
INSERT INTO ph SELECT 4, h FROM pg_temp.hashes('d') h;
SELECT pending_rows FROM simhash_mih_state('ph_mih');
SELECT pg_temp.found('ph') AS new_index, pg_temp.found('ph_temp') AS temporary;
DROP TABLE ph, ph_temp;
DROP FUNCTION runs_radius_mismatches(int), runs_knn_mismatches(int), runs_all_mismatches(), runs_load(text);
